import { tmpdir } from "node:os";
import { JOB_ERROR_CATALOGUE } from "../errors/job-codes.ts";
import { publicJobMessage } from "../errors/public-message.ts";
import { EngineError } from "../engines/types.ts";

/** A failed step as the worker reports it: what the client may see, and the raw text for the server log. */
export interface StepFailure {
  code: string;
  message: string;
  retryable: boolean;
  /** Raw text (tool output, paths, a stack): logged by the service, never stored on the job. */
  detail?: string;
}

const MAX_DETAIL_CHARS = 4000;

/** The directories whose names must never reach a client, for a step run over `storageDir`. */
export function serverDirs(storageDir: string, modelsDir: string): string[] {
  return [storageDir, modelsDir, tmpdir(), process.cwd()];
}

/**
 * Turns whatever a step threw into its reported failure. An EngineError keeps its code and, when
 * it names no server path, its message; anything else is an unexpected engine_error whose text
 * goes to the log only.
 */
export function failureOf(error: unknown, dirs: readonly string[]): StepFailure {
  if (error instanceof EngineError) {
    const { message, withheld } = publicJobMessage(error.code, error.message, dirs);
    const raw = [withheld ? error.message : undefined, error.detail].filter(Boolean).join(" | ");
    return { code: error.code, message, retryable: error.retryable, ...(raw ? { detail: raw.slice(0, MAX_DETAIL_CHARS) } : {}) };
  }
  const raw = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: "engine_error", message: JOB_ERROR_CATALOGUE.engine_error.message, retryable: true, detail: raw.slice(0, MAX_DETAIL_CHARS) };
}
