/**
 * A backup of a data dir, taken while the server runs: a consistent snapshot of the database
 * (SQLite's VACUUM INTO, which reads one transaction's view of a WAL database without stopping
 * writers), the meetings' files (recordings, step results, document renders) and the
 * token-signing key, in one gzip tar written owner-only. The files are hard-linked into a staging
 * folder inside the data dir first (no copy, one filesystem), so the archive is made from a fixed
 * set of files. A meeting created after the snapshot has files but no row: the restored server's
 * start-up sweep removes its folder.
 */
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { create } from "tar";
import { databasePath } from "../db/paths.ts";
import { snapshotDatabase } from "../db/snapshot.ts";

/** What an archive holds, at its root. */
export const ARCHIVE_DATABASE = "verbatim.db";
export const ARCHIVE_FOLDERS = ["meetings", "oauth"] as const;
/** Staging folders in the data dir start so; a start-up sweep removes any a killed backup left. */
export const BACKUP_STAGING_PREFIX = ".backup-";

/** Hard-links every regular file of `from` into `to`, folders recreated; links and the rest are skipped. */
function linkTree(from: string, to: string): number {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  let files = 0;
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const stat = lstatSync(source);
    if (stat.isDirectory()) files += linkTree(source, join(to, name));
    else if (stat.isFile()) {
      linkSync(source, join(to, name));
      files++;
    }
  }
  return files;
}

export async function backupDataDir(dataDir: string, target: string): Promise<{ bytes: number; files: number }> {
  const source = databasePath(dataDir);
  if (!existsSync(source)) throw new Error(`no Verbatim database in ${dataDir}`);
  const staging = mkdtempSync(join(dataDir, BACKUP_STAGING_PREFIX));
  try {
    snapshotDatabase(source, join(staging, ARCHIVE_DATABASE));
    let files = 1;
    const entries: string[] = [ARCHIVE_DATABASE];
    for (const folder of ARCHIVE_FOLDERS) {
      if (!existsSync(join(dataDir, folder))) continue;
      files += linkTree(join(dataDir, folder), join(staging, folder));
      entries.push(folder);
    }
    const partial = `${target}.partial`;
    await create({ gzip: true, file: partial, cwd: staging, portable: true, mode: 0o600 } as Parameters<typeof create>[0] & { file: string }, entries);
    renameSync(partial, target);
    return { bytes: statSync(target).size, files };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
