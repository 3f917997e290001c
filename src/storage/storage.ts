import type { DiskSpace } from "./disk-space.ts";

/**
 * Where meetings' files live: recordings, draft parts, decoded audio, step outputs and document
 * renders, addressed by meeting and by a name inside it ("recording", "audio.wav",
 * "transcribe.json", "parts/000003", "documents/<id>-<hash>.pdf"; storage/paths.ts names them).
 * Every node (API and worker) sees the same store: today a folder they all mount
 * (storage/local-disk.ts, --storage-dir); an object store could implement this later without any
 * domain changing.
 *
 * The rules every implementation keeps:
 * - **No half files.** A file appears under its name whole or not at all: it is written under a
 *   temporary name, made durable, then renamed; the rename is the commit point. A reader on any
 *   node sees the old file, the new one, or none.
 * - **Unique per attempt.** Every write names its attempt (the worker's run id for a step's
 *   output, a fresh random id elsewhere), and the temporary name carries it (plus a random
 *   suffix): two workers that ran the same step (a lost lease) never write into the same file. The
 *   last commit wins, and it is a whole result of that step; which attempt's result the job
 *   records is decided by the scheduler's fencing, not here.
 * - **Ids stay inside.** A meeting id or a name that could leave the meeting's place ("/", "..",
 *   an empty segment, anything beyond letters, digits, ".", "_" and "-") is refused with
 *   StorageKeyRefused before anything is touched.
 */
export interface Storage {
  /**
   * Where the store is, as a worker process is told it (worker/protocol.ts's storageDir) to open
   * the same store: the folder for a local disk. Never shown to a client.
   */
  readonly location: string;
  /** Writes a whole file, atomically (rules above). `attempt` names the writer: a step's run id, or any fresh id. */
  put(meetingId: string, name: string, bytes: Uint8Array | string, attempt: string): Promise<void>;
  /** A whole file, or `range`'s bytes of it (`end` exclusive, clamped to the size); null when there is no such file. */
  get(meetingId: string, name: string, range?: ByteRange): Promise<Uint8Array | null>;
  /** A file to stream (the player's byte ranges), or null when there is none. */
  open(meetingId: string, name: string): Promise<StoredFile | null>;
  /** Removes one file, or with no name everything of the meeting. Nothing there is not an error. */
  delete(meetingId: string, name?: string): Promise<void>;
  /** The committed files of a meeting under `folder` ("" for all), as names relative to the meeting, sorted. Temporary files are not listed. */
  list(meetingId: string, folder?: string): Promise<string[]>;
  /** Every meeting that has files (the start-up sweep of orphans). */
  meetings(): Promise<string[]>;
  /**
   * A file that a tool writes itself (ffmpeg's decoded audio, a download, a joined recording):
   * a fresh temporary path for `attempt`, committed under `name` by `commit()`.
   */
  stage(meetingId: string, name: string, attempt: string): Promise<StagedFile>;
  /** Moves a finished file of `tmpDir` (a received upload) in under `name`, atomically. */
  adopt(meetingId: string, name: string, file: string): Promise<void>;
  /**
   * Where a native tool (ffmpeg, whisper.cpp) reads a committed file. A local disk answers the
   * file itself; an object store would answer a local copy.
   */
  localPath(meetingId: string, name: string): string;
  /** Where uploads are streamed before they belong to a meeting: on the store's own disk, so adopting them is a rename. */
  readonly tmpDir: string;
  /** The space left where files are written, for the disk reserve (--min-free-disk-*). */
  space(): DiskSpace;
}

/** Bytes `start` (inclusive) to `end` (exclusive). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredFile {
  size: number;
  /** Bytes `start` to `end` (exclusive) as a Blob read when consumed: a response body streams it. */
  slice(start: number, end: number): Blob;
}

export interface StagedFile {
  /** The temporary file to write (it may not exist yet). */
  path: string;
  /**
   * Makes the file durable and renames it into place under its name. When `sync()` was awaited
   * first, the rename happens during the call and a failure throws there, so a synchronous
   * transaction body may commit (meetings/drafts.ts: a part is placed by the transaction that
   * records it, and rolls it back if the rename fails).
   */
  commit(): Promise<void>;
  /** Makes what was written to `path` durable (before a commit that must not wait). */
  sync(): Promise<void>;
  /** Removes the temporary file (after a failure; harmless after a commit). */
  discard(): Promise<void>;
}

/** A meeting id or file name that would not stay inside the store. */
export class StorageKeyRefused extends Error {
  constructor(what: string) {
    super(`storage key refused: ${JSON.stringify(what)}`);
  }
}
