#!/usr/bin/env bun
// The one entry point: `verbatim serve`, `verbatim admin ...` and the service's worker processes,
// the same from source and compiled. Nothing else is imported before the command is known: a
// worker process (one per pool slot, started again after a crash or a lost lease) loads the
// worker's modules only, not the whole service (the service's modules took about 1 s of CPU at
// each start: see docs/decisions.md).
import { OWNER_ONLY_UMASK } from "./storage/permissions.ts";

export async function main(argv: string[]): Promise<number> {
  // Everything the service, its workers (they inherit it) and the admin commands create in the
  // data dir is owner-only: recordings, decoded audio, the database, its WAL, keys.
  process.umask(OWNER_ONLY_UMASK);
  // Started by the service's worker pool, never by hand: runs job steps in a separate process.
  if (argv[0] === "worker" && process.send) {
    const { runWorker } = await import("./worker/main.ts");
    await runWorker();
    return 0;
  }
  const { runCommand } = await import("./cli/commands.ts");
  return runCommand(argv);
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
