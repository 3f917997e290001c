import { lazySherpaDiarizer } from "./diarization/index.ts";
import { lazy } from "./lazy.ts";
import { createLlamaReporter } from "./llm/index.ts";
import { configuredModel } from "./model-file.ts";
import type { EntityFinder } from "../redaction/types.ts";
import type { DocumentWriter, Engines, Reporter, Transcriber } from "./types.ts";
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

/**
 * Each engine is created by `preload()` (the worker's start) or on its first use, and kept
 * (lazy.ts): so each model loads once per worker, before its first job, a bad model fails only
 * the steps that need it, and a failed creation is tried again on the next use. Every engine
 * checks its model files as it loads them (model-file.ts): the configured name, with the
 * catalogue's size and sha256 for the models we ship.
 */
export function builtinEngines(settings: BuiltinEngineSettings): Engines {
  const model = (name: string) => configuredModel(settings.modelsDir, name);
  const whisper = lazy(() =>
    createWhisperTranscriber({
      modelPath: model(settings.models.whisper),
      vadModelPath: settings.models.vad ? model(settings.models.vad) : null,
      threads: settings.threads,
      useGpu: settings.gpu === "auto",
      decoding: settings.whisperDecoding,
    }),
  );
  const reporter = lazy(() =>
    createLlamaReporter({
      modelPath: model(settings.models.llm),
      threads: settings.threads,
      gpu: settings.gpu,
      ...(settings.llmContextSize ? { contextSize: settings.llmContextSize } : {}),
    }),
  );
  const transcriber: Transcriber = { transcribe: async (input, context) => (await whisper()).transcribe(input, context) };
  const report: Reporter = { report: async (input, context) => (await reporter()).report(input, context) };
  // The same model instance writes documents, so a worker holds one LLM whatever the job.
  const writer: DocumentWriter = { write: async (input, context) => (await reporter()).write(input, context) };
  const entityFinder: EntityFinder = { find: async (text, kinds, signal) => (await reporter()).find(text, kinds, signal) };
  const diarizer = lazySherpaDiarizer({
    segmentationModelPath: model(settings.models.segmentation),
    embeddingModelPath: model(settings.models.embedding),
    threads: settings.threads,
    clusteringThreshold: settings.diarizationThreshold,
  });
  return {
    transcriber,
    diarizer,
    reporter: report,
    writer,
    entityFinder,
    async preload() {
      const failures: Error[] = [];
      // One after the other: loads side by side would only contend for the same cores and disk.
      for (const load of [whisper, diarizer.preload, reporter]) {
        await load().catch((error: unknown) => failures.push(error as Error));
      }
      return failures;
    },
  };
}
