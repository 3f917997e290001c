import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../db/client.ts";
import { meetings } from "../meetings/table.ts";
import { uploadsTmpDir } from "./paths.ts";

/**
 * At start: removes what a crash can leave behind with no row pointing at it: partial uploads
 * in tmp/ and meeting folders whose meeting was deleted or never committed.
 */
export function sweepOrphans(db: Db, dataDir: string): { tmpFiles: number; meetingDirs: number } {
  let tmpFiles = 0;
  const tmp = uploadsTmpDir(dataDir);
  if (existsSync(tmp)) {
    for (const name of readdirSync(tmp)) {
      rmSync(join(tmp, name), { recursive: true, force: true });
      tmpFiles++;
    }
  }
  let meetingDirs = 0;
  const root = join(dataDir, "meetings");
  if (existsSync(root)) {
    const known = new Set(db.select({ id: meetings.id }).from(meetings).all().map((r) => r.id));
    for (const name of readdirSync(root)) {
      if (!known.has(name)) {
        rmSync(join(root, name), { recursive: true, force: true });
        meetingDirs++;
      }
    }
  }
  return { tmpFiles, meetingDirs };
}
