import { mkdirSync, renameSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { randomBase62 } from "../lib/ids.ts";
import { diskSpace, type DiskSpace } from "./disk-space.ts";
import { meetingDir, uploadsTmpDir } from "./paths.ts";
import { StorageKeyRefused, type ByteRange, type StagedFile, type Storage, type StoredFile } from "./storage.ts";

/** A meeting id: letters, digits, "_" and "-" (a UUID, or a test's "m_1"). */
const MEETING_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** One segment of a name: never "." or "..", never "~" (which marks temporary files), never a separator. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/;
/** An attempt's id inside a temporary name. */
const ATTEMPT = /^[A-Za-z0-9_-]{1,80}$/;
/** Temporary files carry "~": no committed name can (SEGMENT), so listings skip them. */
const TEMP_MARK = "~";

/**
 * The Storage of a folder every node mounts (--storage-dir; the data dir by default): a meeting's
 * files under `meetings/<id>/`, uploads being received under `tmp/`, the layout the data dir
 * always had. Atomic writes are the file system's: the temporary file `<name>~<attempt>~<random>.tmp`
 * beside the final name (same folder, so the same file system), fsync, rename, fsync of the
 * folder. A shared file system must give rename its POSIX meaning (NFS does; docs/decisions.md).
 */
export function localDiskStorage(root: string): Storage {
  const base = resolve(root);
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const meetingsRoot = join(base, "meetings");
  const tmpDir = uploadsTmpDir(base);

  const folderOf = (meetingId: string): string => {
    if (!MEETING_ID.test(meetingId)) throw new StorageKeyRefused(meetingId);
    return meetingDir(base, meetingId);
  };
  /** The file `name` of a meeting, refused unless every segment is plain and the result stays in the meeting's folder. */
  const fileOf = (meetingId: string, name: string): string => {
    const folder = folderOf(meetingId);
    if (!name.split("/").every((segment) => SEGMENT.test(segment))) throw new StorageKeyRefused(name);
    const path = resolve(folder, name);
    if (!path.startsWith(folder + sep)) throw new StorageKeyRefused(name);
    return path;
  };
  const tempBeside = (path: string, attempt: string): string => {
    if (!ATTEMPT.test(attempt)) throw new StorageKeyRefused(attempt);
    return `${path}${TEMP_MARK}${attempt}${TEMP_MARK}${randomBase62(8)}.tmp`;
  };

  return {
    location: base,
    tmpDir,

    async put(meetingId, name, bytes, attempt) {
      const path = fileOf(meetingId, name);
      const tmp = tempBeside(path, attempt);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      try {
        const handle = await open(tmp, "wx", 0o600);
        try {
          await handle.writeFile(bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(tmp, path);
      } catch (error) {
        await rm(tmp, { force: true });
        throw error;
      }
      await syncFolder(dirname(path));
    },

    async get(meetingId, name, range?: ByteRange) {
      const path = fileOf(meetingId, name);
      try {
        if (!range) return new Uint8Array(await readFile(path));
        const handle = await open(path, "r");
        try {
          const size = (await handle.stat()).size;
          const start = Math.min(Math.max(0, range.start), size);
          const end = Math.min(Math.max(start, range.end), size);
          const out = new Uint8Array(end - start);
          let done = 0;
          while (done < out.length) {
            const { bytesRead } = await handle.read(out, done, out.length - done, start + done);
            if (bytesRead === 0) break;
            done += bytesRead;
          }
          return out.subarray(0, done);
        } finally {
          await handle.close();
        }
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async open(meetingId, name): Promise<StoredFile | null> {
      const path = fileOf(meetingId, name);
      try {
        const { size, isFile } = await stat(path).then((s) => ({ size: s.size, isFile: s.isFile() }));
        if (!isFile) return null;
        return { size, slice: (start, end) => Bun.file(path).slice(start, end) };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async delete(meetingId, name) {
      await rm(name === undefined ? folderOf(meetingId) : fileOf(meetingId, name), { recursive: true, force: true });
    },

    async list(meetingId, folder = "") {
      const start = folder === "" ? folderOf(meetingId) : fileOf(meetingId, folder);
      const names: string[] = [];
      await walk(start, folder, names);
      return names.sort();
    },

    async meetings() {
      try {
        return (await readdir(meetingsRoot)).filter((name) => MEETING_ID.test(name));
      } catch (error) {
        if (isMissing(error)) return [];
        throw error;
      }
    },

    async stage(meetingId, name, attempt): Promise<StagedFile> {
      const path = fileOf(meetingId, name);
      const tmp = tempBeside(path, attempt);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      let synced = false;
      const sync = async () => {
        await syncFile(tmp);
        synced = true;
      };
      // Not an async function: once synced, the rename runs (and fails) during the call itself (storage.ts).
      const place = (): Promise<void> => {
        renameSync(tmp, path);
        return syncFolder(dirname(path));
      };
      return {
        path: tmp,
        sync,
        commit: () => (synced ? place() : sync().then(place)),
        async discard() {
          await rm(tmp, { force: true });
        },
      };
    },

    async adopt(meetingId, name, file) {
      const path = fileOf(meetingId, name);
      // Only what this store received: a rename from anywhere else could cross file systems, or move a file nobody meant to give.
      if (!resolve(file).startsWith(tmpDir + sep)) throw new StorageKeyRefused(file);
      await syncFile(file);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await rename(file, path);
      await syncFolder(dirname(path));
    },

    localPath: fileOf,

    space(): DiskSpace {
      return diskSpace(base);
    },
  };
}

/** Committed files under `dir`, as `prefix/name` paths; temporary files left out. */
async function walk(dir: string, prefix: string, into: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error) || (error as NodeJS.ErrnoException).code === "ENOTDIR") return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.includes(TEMP_MARK)) continue;
    const name = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) await walk(join(dir, entry.name), name, into);
    else if (entry.isFile()) into.push(name);
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === "ENOENT";
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename in `dir` durable. Best effort: some file systems refuse to fsync a folder, and the rename itself is already atomic. */
async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not supported here: the data is synced, only the folder entry's durability is left to the file system.
  }
}
