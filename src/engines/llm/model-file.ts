/** Checks a GGUF model file before llama.cpp sees it: present, a plain file, and starting with "GGUF". */
import { open, stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { EngineError } from "../types.ts";

const GGUF_MAGIC = "GGUF";

/** The model's name as reported in results: the file name without its extension. */
export function modelNameOf(modelPath: string): string {
  const file = basename(modelPath);
  const ext = extname(file);
  return ext ? file.slice(0, -ext.length) : file;
}

/**
 * Throws EngineError("model_missing") when the file is absent or unreadable and
 * EngineError("model_invalid") when it is not a GGUF file; neither is retryable.
 */
export async function checkModelFile(modelPath: string): Promise<{ name: string; bytes: number }> {
  let size: number;
  try {
    const info = await stat(modelPath);
    if (!info.isFile()) throw new EngineError("model_missing", `The LLM model path ${basename(modelPath)} is not a file.`, false);
    size = info.size;
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw new EngineError("model_missing", `The LLM model file ${basename(modelPath)} is missing.`, false, { detail: modelPath });
  }
  const magic = Buffer.alloc(4);
  try {
    const handle = await open(modelPath, "r");
    try {
      await handle.read(magic, 0, 4, 0);
    } finally {
      await handle.close();
    }
  } catch {
    throw new EngineError("model_missing", `The LLM model file ${basename(modelPath)} cannot be read.`, false);
  }
  if (size < 4 || magic.toString("latin1") !== GGUF_MAGIC) {
    throw new EngineError("model_invalid", `The LLM model file ${basename(modelPath)} is not a GGUF file.`, false);
  }
  return { name: modelNameOf(modelPath), bytes: size };
}
