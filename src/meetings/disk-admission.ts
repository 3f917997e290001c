import { ApiError } from "../errors/api-error.ts";
import { headroom, type DiskFloor } from "../storage/disk-space.ts";

/**
 * Refuses a new recording (upload or audio_url) while the data disk is below its reserve: what
 * is accepted must be stored, downloaded and decoded, and a full disk would fail it and the jobs
 * already running. Checked before the body is read, so a refused upload writes nothing.
 */
export function assertDiskAdmitsRecordings(dataDir: string, floor: DiskFloor): void {
  if (headroom(dataDir, floor) < 0) {
    throw new ApiError("insufficient_storage", "The server is low on disk space and accepts no new recordings now. Try again later.");
  }
}
