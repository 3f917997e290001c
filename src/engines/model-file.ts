import { basename } from "node:path";
import { catalogueEntryForPath, configuredModelPath, expectedFor, inspectModelFile, type ExpectedModelFile } from "../models/catalogue.ts";
import { EngineError } from "./types.ts";

export type { ExpectedModelFile };

/** A model file as the engines load it and as their errors name it. */
export interface ModelFile {
  /** Where it is on disk. Never shown to clients. */
  path: string;
  /** How messages name it: its name in the models directory (the catalogue's path), else its file name. */
  name: string;
  /** Size and sha256 it must have: the catalogue's, when it is a model we ship. */
  expected?: ExpectedModelFile;
  /** The models directory it was configured in, for the operator's detail (the log, not the client). */
  modelsDir?: string;
}

/** What engine options take: a ModelFile, or a bare path (named by its file name, no expected checksum). */
export type ModelSource = string | ModelFile;

/** A configured model (a name inside the models directory, or an absolute path), with its catalogue entry when we ship it. */
export function configuredModel(modelsDir: string, configured: string): ModelFile {
  const path = configuredModelPath(modelsDir, configured);
  const entry = catalogueEntryForPath(configured);
  return {
    path,
    name: path === configured ? basename(configured) : configured,
    ...(entry ? { expected: expectedFor(modelsDir, entry) } : {}),
    modelsDir,
  };
}

/** A ModelFile for a source; `expected` (from an engine's options) wins over the source's own. */
export function modelFile(source: ModelSource, expected?: ExpectedModelFile): ModelFile {
  const file = typeof source === "string" ? { path: source, name: basename(source) } : source;
  return expected ? { ...file, expected } : file;
}

/**
 * The one file check before an engine loads a model (whisper, VAD, diarization, LLM): the file is
 * there and not empty, and a model we ship has the catalogue's size and sha256 (hashed once per
 * size and modification time, with readiness: models/catalogue.ts). Each engine then checks its
 * format (ggml, ONNX, GGUF), because a native library fed a bad file can take the process down.
 * Throws EngineError model_missing / model_invalid, not retryable, naming the model by its
 * catalogue name, never by an absolute path. Returns the file's size.
 */
export async function checkModelFile(model: ModelFile, role: string): Promise<number> {
  const { state, bytes } = await inspectModelFile(model.path, model.expected);
  const label = `The ${role} model ${model.name}`;
  if (state === "missing") {
    throw new EngineError("model_missing", `${label} is not installed: the file does not exist or is not a file.`, false, {
      detail: model.modelsDir
        ? `${model.name} is not in ${model.modelsDir} (the models we ship are installed by scripts/install-models.ts)`
        : `${model.path} does not exist`,
    });
  }
  if (state === "wrong_size") {
    throw new EngineError("model_invalid", `${label} has ${bytes} bytes, expected ${model.expected!.bytes} (the catalogue's): it is damaged or a different file; reinstall it.`, false);
  }
  if (state === "wrong_checksum") {
    throw new EngineError("model_invalid", `${label} does not match the catalogue's sha256: it is damaged or a different file; reinstall it.`, false);
  }
  if (bytes === 0) throw new EngineError("model_invalid", `${label} is empty.`, false);
  return bytes;
}

/**
 * Reading a model file in a format check went wrong after checkModelFile passed (it was removed
 * or its permissions changed meanwhile, or the check was called on its own): model_missing.
 */
export function unreadableModel(model: ModelFile, role: string, error: unknown): EngineError {
  return new EngineError("model_missing", `The ${role} model ${model.name} cannot be read.`, false, { detail: (error as Error)?.message ?? String(error) });
}
