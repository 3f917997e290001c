import { ARCHIVE_DATABASE, ARCHIVE_FOLDERS } from "./backup.ts";

const TOP_FOLDERS = new Set<string>(ARCHIVE_FOLDERS);
const REGULAR_FILE_TYPES = new Set(["File", "OldFile"]);
const SPECIAL_MODE_BITS = 0o7000; // setuid, setgid, sticky

/**
 * Why an archive entry cannot be restored, or undefined when it can. A backup (backup.ts) holds
 * only regular files and folders, `verbatim.db` and the folders of ARCHIVE_FOLDERS at its root,
 * each path once, with plain owner modes. Anything else (links, devices, FIFOs, a path that is
 * absolute or climbs with `..`, a setuid or setgid mode) is not ours, and refuses the whole archive.
 */
export function entryProblem(rawPath: string, type: string, mode: number | undefined): string | undefined {
  if (rawPath.startsWith("/") || /^[a-zA-Z]:/.test(rawPath) || rawPath.includes("\\")) return `an absolute path (${rawPath})`;
  const parts = rawPath.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) return `a path leaving the data dir (${rawPath})`;
  if (type === "SymbolicLink") return `a symbolic link (${rawPath})`;
  if (type === "Link") return `a hard link (${rawPath})`;
  if (type === "CharacterDevice" || type === "BlockDevice") return `a device file (${rawPath})`;
  if (type === "FIFO") return `a FIFO (${rawPath})`;
  const isFile = REGULAR_FILE_TYPES.has(type);
  if (!isFile && type !== "Directory") return `an entry of type ${type} (${rawPath})`;
  if (mode !== undefined && (mode & SPECIAL_MODE_BITS) !== 0) return `a setuid, setgid or sticky mode (${rawPath}, ${mode.toString(8)})`;
  if (parts.length === 0) return type === "Directory" ? undefined : `an entry without a name (${rawPath})`; // "./": the root itself
  const [top] = parts as [string];
  if (top === ARCHIVE_DATABASE) return parts.length === 1 && isFile ? undefined : `an unexpected ${ARCHIVE_DATABASE} (${rawPath})`;
  if (!TOP_FOLDERS.has(top)) return `an entry outside a backup's layout (${rawPath})`;
  if (parts.length === 1 && isFile) return `a file where a backup has a folder (${rawPath})`;
  return undefined;
}

/** The entry's path as it will be on disk, relative to the restored dir (for duplicates). */
export function entryKey(rawPath: string): string {
  return rawPath
    .split("/")
    .filter((part) => part !== "" && part !== ".")
    .join("/");
}
