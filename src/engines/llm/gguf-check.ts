/** Checks a GGUF model file before llama.cpp sees it: the common file check, then "GGUF" at its start. */
import { open } from "node:fs/promises";
import { basename, extname } from "node:path";
import { checkModelFile, modelFile, unreadableModel, type ModelSource } from "../model-file.ts";
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
 * EngineError("model_invalid") when it differs from the catalogue or is not a GGUF file;
 * neither is retryable.
 */
export async function checkGgufModel(source: ModelSource): Promise<{ name: string; bytes: number }> {
  const model = modelFile(source);
  const size = await checkModelFile(model, "LLM");
  const magic = Buffer.alloc(4);
  try {
    const handle = await open(model.path, "r");
    try {
      await handle.read(magic, 0, 4, 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw unreadableModel(model, "LLM", error);
  }
  if (size < 4 || magic.toString("latin1") !== GGUF_MAGIC) {
    throw new EngineError("model_invalid", `The LLM model ${model.name} is not a GGUF file.`, false);
  }
  return { name: modelNameOf(model.path), bytes: size };
}
