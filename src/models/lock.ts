/**
 * models/lock.json (in the models directory): for catalogue models whose sha256 no public source
 * gives, the size and sha256 of the first download that passed the checks available (the
 * publisher's sha1, else the size), so every later install or verification compares with it.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const modelLockSchema = z.record(z.string(), z.looseObject({ bytes: z.number(), sha256: z.string(), recorded_at: z.string() }));

export type ModelLock = z.infer<typeof modelLockSchema>;

export function lockPath(modelsDir: string): string {
  return join(modelsDir, "lock.json");
}

export function readLock(modelsDir: string): ModelLock {
  try {
    return modelLockSchema.parse(JSON.parse(readFileSync(lockPath(modelsDir), "utf8")));
  } catch {
    // No lock yet, or one that is not a lock: nothing recorded.
    return {};
  }
}

/** Records a verified download's size and sha256 (written to a temporary file, then renamed). */
export function recordInLock(modelsDir: string, path: string, bytes: number, sha256: string): void {
  const lock = readLock(modelsDir);
  lock[path] = { bytes, sha256, recorded_at: new Date().toISOString() };
  const tmp = `${lockPath(modelsDir)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(lock, null, 2)}\n`);
  renameSync(tmp, lockPath(modelsDir));
}
