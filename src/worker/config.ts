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

export function readWorkerConfig(env: Record<string, string | undefined>): WorkerConfig {
  const text = env[WORKER_CONFIG_ENV];
  if (!text) throw new Error(`${WORKER_CONFIG_ENV} is not set: the worker is started by the service, not by hand`);
  return JSON.parse(text) as WorkerConfig;
}
