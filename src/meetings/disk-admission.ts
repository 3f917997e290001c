import { ApiError } from "../errors/api-error.ts";
import { roomAbove, type DiskFloor } from "../storage/disk-space.ts";
import type { Storage } from "../storage/storage.ts";

/**
 * Refuses a new recording (upload or audio_url) while the storage's disk is below its reserve: what
 * is accepted must be stored, downloaded and decoded, and a full disk would fail it and the jobs
 * already running. Checked before the body is read, so a refused upload writes nothing.
 */
export function assertDiskAdmitsRecordings(storage: Storage, floor: DiskFloor): void {
  if (roomAbove(storage.space(), floor) < 0) {
    throw new ApiError("insufficient_storage", "The server is low on disk space and accepts no new recordings now. Try again later.");
  }
}
