import { existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { uploadsTmpDir } from "./paths.ts";

/**
 * At start: removes what a crash can leave behind with no row pointing at it: partial uploads
 * in tmp/ and meeting folders whose meeting was deleted or never committed.
 */
export function sweepOrphans(dataDir: string, isMeeting: (meetingId: string) => boolean): { tmpFiles: number; meetingDirs: number } {
  let tmpFiles = 0;
  const tmp = uploadsTmpDir(dataDir);
  if (existsSync(tmp)) {
    for (const name of readdirSync(tmp)) {
      rmSync(join(tmp, name), { recursive: true, force: true });
      tmpFiles++;
    }
  }
  // A backup killed midway leaves its staging folder of hard links (backup/backup.ts), a restore
  // its staging folder of extracted files (backup/restore.ts).
  for (const name of existsSync(dataDir) ? readdirSync(dataDir) : []) {
    if (name.startsWith(".backup-") || name.startsWith(".restore-")) rmSync(join(dataDir, name), { recursive: true, force: true });
  }
  let meetingDirs = 0;
  const root = join(dataDir, "meetings");
  if (existsSync(root)) {
    for (const name of readdirSync(root)) {
      if (!isMeeting(name)) {
        rmSync(join(root, name), { recursive: true, force: true });
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
export function renameLegacyRecordings(dataDir: string): number {
  const root = join(dataDir, "meetings");
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
