import { join } from "node:path";

/**
 * How to start a worker process: the compiled executable starts itself with `worker`; from
 * source, Bun runs src/main.ts with `worker`.
 */
export function workerCommand(): string[] {
  if (Bun.main.startsWith("/$bunfs/")) return [process.execPath, "worker"];
  return [process.execPath, join(import.meta.dir, "..", "main.ts"), "worker"];
}
