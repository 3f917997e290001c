import { statfsSync } from "node:fs";

/**
 * The reserve kept free on the data disk (--min-free-disk-percent, --min-free-disk-gb): the
 * larger of a share of the disk's size and a number of bytes. New uploads are refused below it,
 * and a recording is decoded only when its decoded audio fits above it, so the database, its WAL
 * and the jobs already accepted keep room to finish.
 */
export interface DiskFloor {
  percent: number;
  bytes: number;
}

export interface DiskSpace {
  /** Bytes an unprivileged writer may still use (f_bavail). */
  freeBytes: number;
  totalBytes: number;
}

/** The file system holding `path`, as the kernel reports it now. */
export function diskSpace(path: string): DiskSpace {
  const stats = statfsSync(path);
  // Block counts are in fragment-size units (statvfs); Linux reports both sizes equal.
  const unit = stats.frsize || stats.bsize;
  return { freeBytes: stats.bavail * unit, totalBytes: stats.blocks * unit };
}

export function floorBytes(totalBytes: number, floor: DiskFloor): number {
  return Math.max(Math.ceil((totalBytes * floor.percent) / 100), floor.bytes);
}

/** Bytes that may still be written on `path`'s disk before it reaches the floor; negative when it is below already. */
export function headroom(path: string, floor: DiskFloor): number {
  return roomAbove(diskSpace(path), floor);
}

/** Bytes that may still be written in `space` before it reaches the floor (a Storage's space()). */
export function roomAbove({ freeBytes, totalBytes }: DiskSpace, floor: DiskFloor): number {
  return freeBytes - floorBytes(totalBytes, floor);
}
