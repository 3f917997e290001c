/**
 * A backup of a data dir, taken while the server runs: a consistent snapshot of the database
 * (SQLite's VACUUM INTO, which reads one transaction's view of a WAL database without stopping
 * writers), the meetings' files (recordings, step results, document renders) and the
 * token-signing key, in one gzip tar written owner-only. The files are hard-linked into a staging
 * folder inside the data dir first (no copy, one filesystem), so the archive is made from a fixed
 * set of files. A meeting created after the snapshot has files but no row: the restored server's
 * start-up sweep removes its folder. With a storage dir of its own (--storage-dir), the meetings'
 * files are hard-linked into a staging folder there (links cannot cross file systems), which the
 * archive's `meetings` entry points to; the archive's layout is the same either way.
 */
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
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

export async function backupDataDir(dataDir: string, target: string, storageDir: string = dataDir): Promise<{ bytes: number; files: number }> {
  const source = databasePath(dataDir);
  if (!existsSync(source)) throw new Error(`no Verbatim database in ${dataDir}`);
  const staging = mkdtempSync(join(dataDir, BACKUP_STAGING_PREFIX));
  const storageStaging = storageDir === dataDir ? staging : mkdtempSync(join(storageDir, BACKUP_STAGING_PREFIX));
  try {
    snapshotDatabase(source, join(staging, ARCHIVE_DATABASE));
    let files = 1;
    const entries: string[] = [ARCHIVE_DATABASE];
    for (const folder of ARCHIVE_FOLDERS) {
      // The meetings' files are the storage's; everything else is the data dir's.
      const from = folder === "meetings" ? storageDir : dataDir;
      const stagedIn = folder === "meetings" ? storageStaging : staging;
      if (!existsSync(join(from, folder))) continue;
      files += linkTree(join(from, folder), join(stagedIn, folder));
      if (stagedIn !== staging) symlinkSync(join(stagedIn, folder), join(staging, folder));
      entries.push(folder);
    }
    const partial = `${target}.partial`;
    // follow: the one link in the staging folder is ours (the storage's staged meetings); its files are archived.
    const options = { gzip: true, file: partial, cwd: staging, portable: true, mode: 0o600, follow: storageStaging !== staging };
    await create(options as Parameters<typeof create>[0] & { file: string }, entries);
    renameSync(partial, target);
    return { bytes: statSync(target).size, files };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    if (storageStaging !== staging) rmSync(storageStaging, { recursive: true, force: true });
  }
}
