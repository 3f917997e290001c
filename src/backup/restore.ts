/**
 * Restores a backup made by backup.ts, all or nothing. The archive is extracted into a fresh
 * staging folder (beside a new target; inside an existing one, so that a mount point such as a
 * Docker volume, or a target whose parent the service user cannot write, works too), checked
 * there, and only then swapped in by renames. Checked: every entry (entryProblem: regular files
 * and folders of a backup's layout only; no link, device, FIFO, absolute or `..` path, setuid or
 * setgid mode), then the database (databaseProblem: integrity, this build's migrations and
 * schema). Every restored file is made 0600 and every folder 0700, whatever the archive says. A
 * data dir a running server holds (its serve.lock) is refused, and the lock is held until the swap
 * is done, so no server starts on it meanwhile. A refused archive leaves the target exactly as it
 * was: the staging folder is removed and nothing else was touched. The server started on the dir
 * then applies any newer migrations and sweeps folders whose meeting is not in the snapshot.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { x as extract } from "tar";
import { DataDirInUse, lockDataDir, lockExistingDataDir, type DataDirLock } from "../db/data-dir-lock.ts";
import { entryKey, entryProblem } from "./archive-entries.ts";
import { ARCHIVE_DATABASE } from "./backup.ts";
import { databaseProblem } from "../db/database-check.ts";

export class RestoreRefused extends Error {}

/** Staging folders inside a data dir start so; the server's start-up sweep (storage/sweep.ts) removes any a killed restore left. */
export const RESTORE_STAGING_PREFIX = ".restore-";
/** The previous contents of an existing data dir, for the moment of the swap; removed once it is done. */
const REPLACED_PREFIX = ".replaced-";
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export async function restoreDataDir(archive: string, dataDir: string, options: { force: boolean }): Promise<{ entries: number }> {
  const target = resolve(dataDir);
  if (!existsSync(archive) || !statSync(archive).isFile()) throw new RestoreRefused(`no such backup file: ${archive}`);
  const exists = existsSync(target);
  if (exists && !statSync(target).isDirectory()) throw new RestoreRefused(`${target} is not a folder`);
  if (exists && readdirSync(target).length > 0 && !options.force) {
    throw new RestoreRefused(`${target} is not empty; restore into an empty folder, or pass --force to replace its contents`);
  }
  let lock: DataDirLock | undefined;
  try {
    lock = exists ? lockExistingDataDir(target) : undefined;
  } catch (error) {
    if (error instanceof DataDirInUse) throw new RestoreRefused(`${target} is in use by a running Verbatim server; stop it before restoring into it`);
    throw error;
  }
  let staging: string | undefined;
  try {
    if (!exists) mkdirSync(dirname(target), { recursive: true, mode: DIR_MODE });
    staging = exists ? mkdtempSync(join(target, RESTORE_STAGING_PREFIX)) : mkdtempSync(join(dirname(target), `.${basename(target)}${RESTORE_STAGING_PREFIX}`));
    const entries = await extractChecked(archive, staging);
    const problem = databaseProblem(join(staging, ARCHIVE_DATABASE));
    if (problem) throw new RestoreRefused(`${archive} cannot be restored: ${problem}; nothing was changed`);
    restrictModes(staging);
    if (!exists) {
      renameSync(staging, target);
      return { entries };
    }
    // An existing dir that had no lock file: take the lock now (creating it in the contents about
    // to be replaced), so that no server starts on the dir during the swap.
    lock ??= lockOrRefuse(target);
    swapContents(target, staging);
    return { entries };
  } finally {
    if (staging) rmSync(staging, { recursive: true, force: true });
    lock?.release();
  }
}

/**
 * Extracts into `staging`, refusing the archive at its first entry that is not a backup's; answers
 * how many entries it holds. Entries are checked in tar's filter, before anything of them is
 * written: a refused entry is never on disk, and a refused archive leaves only the staging folder.
 */
async function extractChecked(archive: string, staging: string): Promise<number> {
  let problem: string | undefined;
  let sawDatabase = false;
  const seen = new Set<string>();
  try {
    await extract({
      file: archive,
      cwd: staging,
      strict: true, // a damaged header or a gzip error rejects instead of being skipped
      preservePaths: false,
      preserveOwner: false, // root restoring gets files of its own, not the archive's owners
      filter: (path, entry) => {
        if (problem) return false;
        const type = "type" in entry ? entry.type : "Unknown";
        const key = entryKey(path);
        problem = entryProblem(path, type, entry.mode ?? undefined) ?? (seen.has(key) ? `the same path twice (${path})` : undefined);
        seen.add(key);
        if (key === ARCHIVE_DATABASE) sawDatabase = true;
        return problem === undefined;
      },
    });
  } catch (error) {
    throw new RestoreRefused(`${archive} is not a readable Verbatim backup (${(error as Error).message}); nothing was changed`);
  }
  if (problem) throw new RestoreRefused(`${archive} is not a Verbatim backup: it holds ${problem}; nothing was changed`);
  if (!sawDatabase) throw new RestoreRefused(`${archive} is not a Verbatim backup (it holds no ${ARCHIVE_DATABASE}); nothing was changed`);
  return seen.size;
}

/** Exactly 0600 for files and 0700 for folders: no setuid, setgid, sticky, group or other bit survives. */
function restrictModes(dir: string): void {
  chmodSync(dir, DIR_MODE);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) restrictModes(path);
    else if (stat.isFile()) chmodSync(path, FILE_MODE);
    else throw new RestoreRefused(`the restored tree holds something that is neither file nor folder (${name}); nothing was changed`);
  }
}

function lockOrRefuse(target: string): DataDirLock {
  try {
    return lockDataDir(target);
  } catch (error) {
    if (error instanceof DataDirInUse) throw new RestoreRefused(`${target} is in use by a running Verbatim server; stop it before restoring into it`);
    throw error;
  }
}

/**
 * Moves the target's current entries into a folder of its own, then the staged entries up into
 * the target, each a rename on one filesystem; then removes the previous contents. When a rename
 * fails midway, the moves made are undone, so the target keeps its previous contents. (`rename`
 * is a parameter for the test that makes one fail.)
 */
export function swapContents(target: string, staging: string, rename: (from: string, to: string) => void = renameSync): void {
  const replaced = mkdtempSync(join(target, REPLACED_PREFIX));
  const stagingName = basename(staging);
  const replacedName = basename(replaced);
  const moved: [from: string, to: string][] = [];
  const move = (from: string, to: string) => {
    rename(from, to);
    moved.push([from, to]);
  };
  try {
    for (const name of readdirSync(target)) {
      if (name !== stagingName && name !== replacedName) move(join(target, name), join(replaced, name));
    }
    for (const name of readdirSync(staging)) move(join(staging, name), join(target, name));
  } catch (error) {
    for (const [from, to] of moved.reverse()) renameSync(to, from);
    rmSync(replaced, { recursive: true, force: true });
    throw error;
  }
  rmSync(replaced, { recursive: true, force: true });
  chmodSync(target, DIR_MODE);
}
