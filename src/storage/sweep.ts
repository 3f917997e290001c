import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { uploadsTmpDir } from "./paths.ts";

/**
 * At start: removes what a crash can leave behind with no row pointing at it: partial uploads
 * in tmp/ and meeting folders whose meeting was deleted or never committed. When the storage dir
 * is the data dir, this server is its only user (it holds the data dir's lock) and everything
 * found goes. A storage dir of its own may be shared by other nodes, busy receiving an upload or
 * creating a meeting right now: then only what nobody touched for `sharedMinAgeMs` goes (the
 * retention sweep's age for a stale upload), the rest is left to a later start or to retention.
 */
export function sweepOrphans(
  dirs: { dataDir: string; storageDir: string },
  isMeeting: (meetingId: string) => boolean,
  sharedMinAgeMs: number,
  now: number = Date.now(),
): { tmpFiles: number; meetingDirs: number } {
  const { dataDir, storageDir } = dirs;
  const minAgeMs = storageDir === dataDir ? 0 : sharedMinAgeMs;
  const oldEnough = (path: string) => {
    try {
      return minAgeMs === 0 || now - statSync(path).mtimeMs >= minAgeMs;
    } catch {
      return false; // gone meanwhile
    }
  };
  const remove = (path: string) => rmSync(path, { recursive: true, force: true });

  let tmpFiles = 0;
  const tmp = uploadsTmpDir(storageDir);
  if (existsSync(tmp)) {
    for (const name of readdirSync(tmp)) {
      if (!oldEnough(join(tmp, name))) continue;
      remove(join(tmp, name));
      tmpFiles++;
    }
  }
  // A backup killed midway leaves its staging folder of hard links (backup/backup.ts, in both
  // folders when the storage has its own), a restore its staging folder of extracted files (backup/restore.ts).
  for (const dir of new Set([dataDir, storageDir])) {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      if ((name.startsWith(".backup-") || name.startsWith(".restore-")) && oldEnough(join(dir, name))) remove(join(dir, name));
    }
  }
  let meetingDirs = 0;
  const root = join(storageDir, "meetings");
  if (existsSync(root)) {
    for (const name of readdirSync(root)) {
      if (!isMeeting(name) && oldEnough(join(root, name))) {
        remove(join(root, name));
        meetingDirs++;
      }
    }
  }
  return { tmpFiles, meetingDirs };
}

/**
 * Recordings stored before they had a neutral name were `original<.ext from the client>`; they
 * become `recording`, so an upgraded server resumes their jobs like any other.
 */
export function renameLegacyRecordings(storageDir: string): number {
  const root = join(storageDir, "meetings");
  if (!existsSync(root)) return 0;
  let renamed = 0;
  for (const id of readdirSync(root)) {
    const dir = join(root, id);
    if (existsSync(join(dir, "recording"))) continue;
    const legacy = readdirSync(dir).find((name) => /^original(\.[a-z0-9]{1,8})?$/.test(name));
    if (!legacy) continue;
    renameSync(join(dir, legacy), join(dir, "recording"));
    renamed++;
  }
  return renamed;
}
