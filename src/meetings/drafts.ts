import { and, eq } from "drizzle-orm";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Plan } from "../auth/plans.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import { randomBase62 } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { headroom, type DiskFloor } from "../storage/disk-space.ts";
import { looksLikeRecording, MEDIA_HEAD_BYTES, NOT_A_RECORDING_MESSAGE } from "../uploads/media-sniff.ts";
import { describeBytes } from "../uploads/multipart.ts";
import { draftPartsDir, recordingPath } from "../storage/paths.ts";
import type { BillingSettings } from "../usage/settings.ts";
import { enqueueProcessing } from "./create.ts";
import { assertDiskAdmitsRecordings } from "./disk-admission.ts";
import { getOwnedMeetingRow } from "./render.ts";
import { meetings } from "./table.ts";

/**
 * A draft's recording arrives in numbered parts (the web app's recorder sends one every few
 * seconds, its uploader one per slice of a large file), each stored as it comes, so a dropped
 * connection or a closed tab loses only the parts not yet sent: the browser sends the missing
 * ones again and finishes. Parts are bounded in size and number, and together by the upload limit.
 */
export const MAX_PART_BYTES = 16 * 1024 * 1024;
export const MAX_PARTS = 100_000;

const partName = (index: number) => String(index).padStart(6, "0");

export interface DraftDeps {
  db: Db;
  dataDir: string;
  clock: Clock;
  slots: ParallelSlots;
  billing: BillingSettings;
  minFreeDisk: DiskFloor;
  maxUploadBytes: number;
}

function ownedDraft(deps: Pick<DraftDeps, "db">, userId: string, meetingId: string) {
  const meeting = getOwnedMeetingRow(deps.db, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  if (meeting.status !== "draft") throw new ApiError("draft_closed", "This meeting's recording is complete; it takes no more parts.");
  return meeting;
}

/** The parts a draft holds: their numbers in order and their total size. */
export function draftParts(dataDir: string, meetingId: string): { indexes: number[]; bytes: number } {
  let names: string[];
  try {
    names = readdirSync(draftPartsDir(dataDir, meetingId)).filter((name) => /^\d{6}$/.test(name));
  } catch {
    return { indexes: [], bytes: 0 };
  }
  const dir = draftPartsDir(dataDir, meetingId);
  return {
    indexes: names.map(Number).sort((a, b) => a - b),
    bytes: names.reduce((sum, name) => sum + statSync(join(dir, name)).size, 0),
  };
}

/** Stores part `index` of one of the user's drafts (again, if it was sent before: the last copy wins). */
export function storeDraftPart(deps: DraftDeps, userId: string, meetingId: string, index: number, bytes: Uint8Array): void {
  const draft = ownedDraft(deps, userId, meetingId);
  if (!Number.isInteger(index) || index < 0 || index >= MAX_PARTS) {
    throw ApiError.validation([{ field: "part", code: "invalid_value", message: `A part number is an integer from 0 to ${MAX_PARTS - 1}.` }]);
  }
  if (bytes.length === 0) throw ApiError.validation([{ field: "part", code: "too_short", message: "A part is never empty." }]);
  // The recording's first bytes say what it is: a file that is no recording is refused at its first part, not after the whole upload.
  if (index === 0 && !looksLikeRecording(bytes.subarray(0, MEDIA_HEAD_BYTES))) throw new ApiError("unsupported_media", NOT_A_RECORDING_MESSAGE);
  assertDiskAdmitsRecordings(deps.dataDir, deps.minFreeDisk);
  const dir = draftPartsDir(deps.dataDir, draft.id);
  const path = join(dir, partName(index));
  let previous = 0;
  try {
    previous = statSync(path).size;
  } catch {
    // a new part
  }
  if (draftParts(deps.dataDir, draft.id).bytes - previous + bytes.length > deps.maxUploadBytes) {
    throw new ApiError("file_too_large", `A recording is at most ${describeBytes(deps.maxUploadBytes)}.`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Written whole to a temporary name, then renamed: a part on disk is always complete.
  const tmp = `${path}.${randomBase62(8)}.tmp`;
  writeFileSync(tmp, bytes, { mode: 0o600 });
  renameSync(tmp, path);
}

/**
 * Joins a draft's parts into its recording and queues its processing (web app channel). The
 * parts must run from 0 without a gap; when `expectedBytes` is given (an upload of a known file)
 * they must add up to it. A live recording's joined WebM carries no duration: the worker remuxes
 * it before decoding (meetings/processing.ts). If queueing fails (no free slot), the parts stay
 * and the draft can be finished later.
 */
export async function finishDraft(deps: DraftDeps, account: { userId: string; plan: Plan }, meetingId: string, expectedBytes?: number): Promise<string> {
  const draft = ownedDraft(deps, account.userId, meetingId);
  const { indexes, bytes } = draftParts(deps.dataDir, draft.id);
  const last = indexes.at(-1) ?? -1;
  const missing: number[] = [];
  for (let i = 0, at = 0; i <= last && missing.length < 100; i++) {
    if (indexes[at] === i) at++;
    else missing.push(i);
  }
  if (indexes.length === 0 || missing.length > 0 || (expectedBytes !== undefined && bytes !== expectedBytes)) {
    const which = indexes.length === 0 ? "No part has arrived yet." : missing.length ? `Missing parts: ${missing.join(", ")}.` : `The parts hold ${bytes} bytes of ${expectedBytes}.`;
    throw new ApiError("draft_incomplete", `The recording is not complete. ${which}`);
  }
  // The joined copy sits beside the parts until they are removed: the disk must hold both.
  if (headroom(deps.dataDir, deps.minFreeDisk) < bytes) {
    throw new ApiError("insufficient_storage", "The server is low on disk space and cannot join this recording now. What arrived is kept; finish it later.");
  }
  const target = recordingPath(deps.dataDir, draft.id);
  const joining = `${target}.${randomBase62(8)}.tmp`;
  try {
    const dir = draftPartsDir(deps.dataDir, draft.id);
    // Part by part, without blocking the server: a 2 GB upload is about 125 parts.
    for (const index of indexes) await appendFile(joining, await readFile(join(dir, partName(index))), { mode: 0o600 });
    renameSync(joining, target);
  } finally {
    rmSync(joining, { force: true });
  }
  const now = deps.clock.now();
  let jobId = "";
  try {
    deps.db.transaction(
      (tx) => {
        const opened = tx
          .update(meetings)
          .set({ status: "queued", updatedAt: now })
          .where(and(eq(meetings.id, draft.id), eq(meetings.status, "draft")))
          .returning({ id: meetings.id })
          .all();
        if (opened.length === 0) throw new ApiError("draft_closed", "This meeting's recording was finished already.");
        jobId = enqueueProcessing(tx, deps, account, draft.id, { firstStep: "decode", transcribeOnly: draft.transcribeOnly, documentTemplates: null, metadata: null }, "webapp", now);
      },
      { behavior: "immediate" },
    );
  } catch (error) {
    rmSync(target, { force: true });
    throw error;
  }
  rmSync(draftPartsDir(deps.dataDir, draft.id), { recursive: true, force: true });
  return jobId;
}
