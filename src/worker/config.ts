import { z } from "zod";
import type { EngineSettings } from "../engines/load.ts";
import type { DiskFloor } from "../storage/disk-space.ts";

/** What the worker process needs from the service's configuration, passed in its environment. */
export interface WorkerConfig extends EngineSettings {
  ffmpegPath: string;
  egressAllow: string;
  maxDownloadBytes: number;
  downloadTimeoutMs: number;
  /** Longest recording decoded (--max-duration). */
  maxDurationSeconds: number;
  /** The data disk's reserve: a recording is decoded only when its audio fits above it. */
  minFreeDisk: DiskFloor;
}

// VERBATIM_INTERNAL_*: set by the service for its own child processes, never by an operator.
export const WORKER_CONFIG_ENV = "VERBATIM_INTERNAL_WORKER_CONFIG";

/**
 * The configuration as the worker reads it back: checked against WorkerConfig's fields (the
 * compiler keeps the two in step), any other key passed through to a custom engines module.
 */
const workerConfigSchema: z.ZodType<WorkerConfig> = z.looseObject({
  engines: z.string(),
  modelsDir: z.string(),
  models: z.looseObject({ whisper: z.string(), vad: z.string().nullable(), segmentation: z.string(), embedding: z.string(), llm: z.string() }),
  threads: z.number(),
  gpu: z.union([z.literal("auto"), z.literal(false)]),
  whisperDecoding: z.record(z.string(), z.unknown()),
  diarizationThreshold: z.number(),
  llmContextSize: z.number().nullable(),
  speakers: z.looseObject({ min: z.number().nullable(), max: z.number().nullable() }),
  ffmpegPath: z.string(),
  egressAllow: z.string(),
  maxDownloadBytes: z.number(),
  downloadTimeoutMs: z.number(),
  maxDurationSeconds: z.number(),
  minFreeDisk: z.looseObject({ percent: z.number(), bytes: z.number() }),
});

export function readWorkerConfig(env: Record<string, string | undefined>): WorkerConfig {
  const text = env[WORKER_CONFIG_ENV];
  if (!text) throw new Error(`${WORKER_CONFIG_ENV} is not set: the worker is started by the service, not by hand`);
  return workerConfigSchema.parse(JSON.parse(text));
}
