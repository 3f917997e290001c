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
 *
 * On PostgreSQL (backupSharedStorage) the database is not a file of the data dir: the archive holds
 * the storage dir every node mounts (the meetings' files and the token-signing key) and, when
 * pg_dump is on PATH, the database in pg_dump's custom format (ARCHIVE_PG_DUMP, for pg_restore).
 */
import { spawn } from "node:child_process";
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { create } from "tar";
import { databasePath } from "../db/paths.ts";
import { snapshotDatabase } from "../db/snapshot.ts";

/** What an archive holds, at its root. */
export const ARCHIVE_DATABASE = "verbatim.db";
/** On PostgreSQL, pg_dump's custom-format dump of the database (restore with pg_restore). */
export const ARCHIVE_PG_DUMP = "verbatim.pgdump";
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

/** How the database of a PostgreSQL backup was taken: dumped into the archive, or left to the operator. */
export type DatabaseInBackup = { dumped: true; pgDump: string } | { dumped: false; why: string };

/**
 * pg_dump's connection: the URL without its password (argv is readable by every user of the
 * machine, in ps and /proc), which goes in PGPASSWORD instead, in pg_dump's environment only.
 */
export function pgDumpConnection(url: string): { dbname: string; env: Record<string, string> } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  return { dbname: parsed.toString(), env: password ? { PGPASSWORD: password } : {} };
}

/** Runs pg_dump into `file`; rejects with its first line of complaint (pg_dump never echoes a password). */
function runPgDump(pgDump: string, url: string, file: string): Promise<void> {
  const { dbname, env } = pgDumpConnection(url);
  return new Promise((resolve, reject) => {
    const child = spawn(pgDump, ["--format=custom", "--no-owner", "--no-privileges", `--file=${file}`, `--dbname=${dbname}`], {
      env: { ...process.env, ...env, PGAPPNAME: "verbatim-backup" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`pg_dump failed (exit ${code}): ${stderr.trim().split("\n")[0] ?? ""}`));
    });
  });
}

/**
 * A backup on PostgreSQL: the storage dir's meetings and token-signing key, linked into a staging
 * folder there (as backupDataDir does), and the database dumped by `pgDump` (pg_dump, found on PATH
 * by the caller) into the archive; without one, the archive holds the storage only and says so.
 * The dump and the files are not one snapshot: a meeting created between them has files without a
 * row (swept at a restored node's start) or a row whose files are missing, as with a restore from
 * a SQLite backup taken while uploads arrive.
 */
export async function backupSharedStorage(
  storageDir: string,
  target: string,
  database: { url: string; pgDump: string | null },
): Promise<{ bytes: number; files: number; database: DatabaseInBackup }> {
  if (!existsSync(storageDir)) throw new Error(`the storage dir ${storageDir} does not exist`);
  const staging = mkdtempSync(join(storageDir, BACKUP_STAGING_PREFIX));
  try {
    let files = 0;
    const entries: string[] = [];
    let inBackup: DatabaseInBackup = { dumped: false, why: "pg_dump is not on PATH" };
    if (database.pgDump) {
      await runPgDump(database.pgDump, database.url, join(staging, ARCHIVE_PG_DUMP));
      entries.push(ARCHIVE_PG_DUMP);
      files++;
      inBackup = { dumped: true, pgDump: database.pgDump };
    }
    for (const folder of ARCHIVE_FOLDERS) {
      if (!existsSync(join(storageDir, folder))) continue;
      files += linkTree(join(storageDir, folder), join(staging, folder));
      entries.push(folder);
    }
    const partial = `${target}.partial`;
    await create({ gzip: true, file: partial, cwd: staging, portable: true, mode: 0o600 } as Parameters<typeof create>[0] & { file: string }, entries);
    renameSync(partial, target);
    return { bytes: statSync(target).size, files, database: inBackup };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
