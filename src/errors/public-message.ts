import { isJobErrorCode, JOB_ERROR_CATALOGUE } from "./job-codes.ts";

/**
 * An absolute path (or a file: URL) standing on its own in a sentence: after the start, a space,
 * a quote, a bracket, "=", "," or ";". Model names relative to the models directory
 * ("whisper/ggml-base.bin") do not start with "/" and stay.
 */
const ABSOLUTE_PATH = /(?:^|[\s'"`(\[=,;])~?\/[^\s/]|file:/i;

/** True when the text names a server path: one of `serverDirs` (data dir, models dir, temp dir...) or any absolute path. */
export function mentionsServerPath(text: string, serverDirs: readonly string[]): boolean {
  if (ABSOLUTE_PATH.test(text)) return true;
  return serverDirs.some((dir) => dir.length > 1 && text.includes(dir));
}

/**
 * The message a client sees for a failed job. Engines write their messages for the client, but a
 * message that names a server path anyway (a library's error text passed on, a new engine) is
 * replaced by the code's catalogue sentence: the client learns what went wrong, the server log
 * keeps the original (`withheld`).
 */
export function publicJobMessage(code: string, message: string, serverDirs: readonly string[]): { message: string; withheld: boolean } {
  const fallback = isJobErrorCode(code) ? JOB_ERROR_CATALOGUE[code].message : JOB_ERROR_CATALOGUE.engine_error.message;
  const text = message.trim();
  if (!text) return { message: fallback, withheld: false };
  if (mentionsServerPath(text, serverDirs)) return { message: fallback, withheld: true };
  return { message: text.slice(0, 500), withheld: false };
}
