/**
 * Restores a backup made by backup.ts into a data dir: refused when the dir holds anything unless
 * `force` (then emptied first); only regular files and folders are extracted, never links, device
 * files or paths leaving the dir; everything is made owner-only. The server started on the dir
 * then applies any newer migrations and sweeps folders whose meeting is not in the snapshot.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { list, x as extract } from "tar";
import { restrictToOwner } from "../storage/permissions.ts";
import { ARCHIVE_DATABASE, ARCHIVE_FOLDERS } from "./backup.ts";

export class RestoreRefused extends Error {}

/** Whether the archive holds a Verbatim database at its root (read before anything is touched). */
async function holdsDatabase(archive: string): Promise<boolean> {
  let found = false;
  try {
    await list({ file: archive, onReadEntry: (entry) => void (found ||= entry.path.replace(/^\.\//, "") === ARCHIVE_DATABASE) });
  } catch {
    return false;
  }
  return found;
}

export async function restoreDataDir(archive: string, dataDir: string, options: { force: boolean }): Promise<{ entries: number }> {
  if (!existsSync(archive)) throw new RestoreRefused(`no such backup file: ${archive}`);
  if (!(await holdsDatabase(archive))) throw new RestoreRefused(`${archive} is not a Verbatim backup (it holds no ${ARCHIVE_DATABASE})`);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    if (!options.force) throw new RestoreRefused(`${dataDir} is not empty; restore into an empty folder, or pass --force to replace its contents`);
    for (const name of readdirSync(dataDir)) rmSync(`${dataDir}/${name}`, { recursive: true, force: true });
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const allowed = new Set<string>([ARCHIVE_DATABASE, ...ARCHIVE_FOLDERS]);
  let entries = 0;
  await extract({
    file: archive,
    cwd: dataDir,
    strict: true,
    preservePaths: false, // no absolute paths, no "..": node-tar refuses them
    filter: (path, entry) => {
      const type = "type" in entry ? entry.type : undefined;
      const top = path.replace(/^\.\//, "").split("/")[0]!;
      const ok = allowed.has(top) && (type === "File" || type === "Directory");
      if (ok) entries++;
      return ok;
    },
  });
  restrictToOwner(dataDir);
  return { entries };
}
