import { chmodSync, existsSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Recordings, transcripts, the database and the signing key are for the service's user alone. */
export const OWNER_ONLY_UMASK = 0o077;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Takes away group and other access from the data dir and everything in it, for a dir made
 * before the umask was set or by hand (a Docker volume, a copied backup). New files are
 * owner-only through the umask; this repairs the old ones. Symbolic links are not followed.
 * Answers how many entries were changed, so the operator can be told.
 */
export function restrictToOwner(dataDir: string): number {
  if (!existsSync(dataDir)) return 0;
  let changed = 0;
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) {
      chmodSync(path, (stat.mode & 0o700) | (stat.isDirectory() ? DIR_MODE : FILE_MODE));
      changed++;
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dataDir);
  return changed;
}
