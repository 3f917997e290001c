import { basename, isAbsolute, join } from "node:path";
import { catalogueEntryForPath, configuredModelState } from "../models/catalogue.ts";
import { lazySherpaDiarizer } from "./diarization/index.ts";
import { createLlamaReporter } from "./llm/index.ts";
import { EngineError, type Engines, type Reporter, type Transcriber } from "./types.ts";
import { createWhisperTranscriber } from "./whisper/index.ts";

/** Model files by role, as names (paths) inside the models directory, or absolute paths. */
export interface ModelNames {
  whisper: string;
  vad: string | null; // null: no VAD gating
  segmentation: string;
  embedding: string;
  llm: string;
}

export interface BuiltinEngineSettings {
  modelsDir: string;
  models: ModelNames;
  threads: number;
  gpu: "auto" | false;
  whisperDecoding: Record<string, unknown>;
  diarizationThreshold: number;
  llmContextSize: number | null;
  /** Speaker-count bounds for meetings that give none (a meeting's own hints win). */
  speakers: { min: number | null; max: number | null };
}

export const DEFAULT_MODELS: ModelNames = {
  whisper: "whisper/ggml-tiny-random.bin",
  vad: "vad/silero_vad.onnx",
  segmentation: "diarization/segmentation-energy-pauses.onnx",
  embedding: "diarization/embedding-fbank-stats.onnx",
  llm: "llm/stories260K.gguf",
};

/**
 * Creates an engine on first use and keeps it; a failed creation is retried on the next use. So
 * each model loads once per worker, and a bad model fails only the steps that need it.
 */
function lazy<T>(create: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= create().catch((error) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/** A configured model must be there, and one we ship must match its catalogue size and sha256, before an engine loads it. */
async function checkConfiguredModel(modelsDir: string, name: string): Promise<void> {
  const state = await configuredModelState(modelsDir, name);
  // Named as configured when relative to the models directory; by its file name when absolute.
  const shown = isAbsolute(name) ? basename(name) : name;
  if (state === "missing") {
    throw new EngineError("model_missing", `The model ${shown} is not installed.`, false, {
      detail: `${name} is not in ${modelsDir} (the models we ship are installed by scripts/install-models.ts)`,
    });
  }
  if (state !== "ok") throw new EngineError("model_invalid", `The model file ${shown} does not match the catalogue (${state}); reinstall it.`, false);
}

/** whisper.cpp transcription, sherpa-onnx diarization and a llama.cpp report model, from local files. */
export function builtinEngines(settings: BuiltinEngineSettings): Engines {
  const path = (name: string) => (isAbsolute(name) ? name : join(settings.modelsDir, name));
  const expected = (name: string) => {
    const entry = catalogueEntryForPath(name);
    return entry ? { bytes: entry.bytes, sha256: entry.sha256 } : undefined;
  };
  const whisper = lazy(async () => {
    await checkConfiguredModel(settings.modelsDir, settings.models.whisper);
    if (settings.models.vad) await checkConfiguredModel(settings.modelsDir, settings.models.vad);
    return createWhisperTranscriber({
      modelPath: path(settings.models.whisper),
      vadModelPath: settings.models.vad ? path(settings.models.vad) : null,
      threads: settings.threads,
      useGpu: settings.gpu === "auto",
      decoding: settings.whisperDecoding,
    });
  });
  const reporter = lazy(async () => {
    await checkConfiguredModel(settings.modelsDir, settings.models.llm);
    return createLlamaReporter({
      modelPath: path(settings.models.llm),
      threads: settings.threads,
      gpu: settings.gpu,
      ...(settings.llmContextSize ? { contextSize: settings.llmContextSize } : {}),
    });
  });
  const transcriber: Transcriber = { transcribe: async (input, context) => (await whisper()).transcribe(input, context) };
  const report: Reporter = { report: async (input, context) => (await reporter()).report(input, context) };
  return {
    transcriber,
    diarizer: lazySherpaDiarizer({
      segmentationModelPath: path(settings.models.segmentation),
      embeddingModelPath: path(settings.models.embedding),
      threads: settings.threads,
      clusteringThreshold: settings.diarizationThreshold,
      expectedModels: { segmentation: expected(settings.models.segmentation), embedding: expected(settings.models.embedding) },
    }),
    reporter: report,
  };
}
