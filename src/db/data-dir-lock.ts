import { Database } from "bun:sqlite";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export class DataDirInUse extends Error {}

export interface DataDirLock {
  release(): void;
}

/**
 * One server per data dir: two would run the same jobs, sweep each other's uploads and race on
 * every file. The lock is an exclusive SQLite lock held on `<data-dir>/serve.lock` for the life
 * of the process: a POSIX advisory lock the kernel drops when the process ends, however it ends
 * (kill -9 included), so a crash never leaves a stale lock behind. The main database is not the
 * lock: the admin commands open it while the server runs.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return holdLock(dataDir, true);
}

/**
 * The same lock, taken without creating anything: for `restore`, which must refuse a data dir a
 * server is running on and leave a refused target exactly as it was. Undefined when the dir has
 * no lock file (no server ever ran on it).
 */
export function lockExistingDataDir(dataDir: string): DataDirLock | undefined {
  if (!existsSync(join(dataDir, LOCK_FILE))) return undefined;
  return holdLock(dataDir, false);
}

const LOCK_FILE = "serve.lock";

function holdLock(dataDir: string, create: boolean): DataDirLock {
  const lock = new Database(join(dataDir, LOCK_FILE), create ? { create: true } : { readwrite: true });
  try {
    lock.exec("PRAGMA busy_timeout = 0");
    lock.exec("PRAGMA locking_mode = EXCLUSIVE");
    lock.exec("BEGIN EXCLUSIVE");
  } catch {
    lock.close();
    throw new DataDirInUse(`the data dir ${dataDir} is in use by another running Verbatim server; stop it first, or give this one another --data-dir`);
  }
  return {
    release() {
      lock.exec("COMMIT");
      lock.close();
    },
  };
}
