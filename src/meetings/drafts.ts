import type { JobQueue } from "../jobs/pg-boss-store.ts";
import { createHash } from "node:crypto";
import { open, writeFile } from "node:fs/promises";
import type { Plan } from "../auth/plans.ts";
import { withTx, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import { randomBase62 } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { roomAbove, type DiskFloor } from "../storage/disk-space.ts";
import { looksLikeRecording, MEDIA_HEAD_BYTES, NOT_A_RECORDING_MESSAGE } from "../uploads/media-sniff.ts";
import { DRAFT_PARTS, draftPartName, RECORDING } from "../storage/paths.ts";
import type { Storage } from "../storage/storage.ts";
import type { BillingSettings } from "../usage/settings.ts";
import { assertDiskAdmitsRecordings } from "./disk-admission.ts";
import { MAX_PARTS, type DraftLimits } from "./draft-limits.ts";
import { queueProcessing } from "./queue-store.ts";
import { checkDraftPart, closeDraft, draftWithParts, findOwnedDraft, forgetLostPart, partRefused, recordDraftPart } from "./draft-store.ts";


/** What receiving and finishing a draft need: the database as a `Conn` (meetings/app.ts). */
export interface DraftConnDeps {
  conn: Conn;
  /** Where the parts and the joined recording go. */
  storage: Storage;
  clock: Clock;
  slots: ParallelSlots;
  billing: BillingSettings;
  /** Where a queued job is announced to the workers (jobs/pg-boss-store.ts). */
  jobQueue: JobQueue;
  minFreeDisk: DiskFloor;
  maxUploadBytes: number;
  drafts: DraftLimits;
  /** The joined recording's announced duration, reserved at admission (meetings/create.ts). */
  measureRecording(path: string): Promise<number | null>;
}

/** Hashed a slice at a time, letting other requests run in between (a 16 MiB part is tens of ms of hashing). */
const HASH_SLICE_BYTES = 1024 * 1024;

/**
 * The SHA-256 of a part, in hex. Hashing is CPU work on the event loop whatever the API (Bun's
 * WebCrypto digest blocks it too, and longer), so it yields between slices.
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const hash = createHash("sha256");
  for (let at = 0; at < bytes.length; at += HASH_SLICE_BYTES) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    hash.update(bytes.subarray(at, at + HASH_SLICE_BYTES));
  }
  return hash.digest("hex");
}

/** Stores part `index` of one of the user's drafts (again, if it was sent before: the last copy wins). */
export async function receiveDraftPart(deps: DraftConnDeps, userId: string, meetingId: string, index: number, bytes: Uint8Array): Promise<void> {
  const draft = await findOwnedDraft(deps.conn, userId, meetingId);
  if (!Number.isInteger(index) || index < 0 || index >= MAX_PARTS) {
    throw partRefused("invalid_value", `A part number is an integer from 0 to ${MAX_PARTS - 1}.`);
  }
  if (bytes.length === 0) throw partRefused("too_short", "A part is never empty.");
  // The recording's first bytes say what it is: a file that is no recording is refused at its first part, not after the whole upload.
  if (index === 0 && !looksLikeRecording(bytes.subarray(0, MEDIA_HEAD_BYTES))) throw new ApiError("unsupported_media", NOT_A_RECORDING_MESSAGE);
  await checkDraftPart(deps.conn, deps, userId, draft.id, index, bytes.length);
  assertDiskAdmitsRecordings(deps.storage, deps.minFreeDisk);
  const sha256 = await sha256Hex(bytes);
  // Written whole to a temporary name off the event loop and synced, then renamed into place in
  // the transaction that records it: a stored part is complete, and its row says which bytes it holds.
  const staged = await deps.storage.stage(draft.id, draftPartName(index), randomBase62(8));
  try {
    await writeFile(staged.path, bytes, { mode: 0o600 });
    await staged.sync();
    await recordDraftPart(deps.conn, deps, userId, draft.id, { index, bytes: bytes.length, sha256 }, deps.clock.now(), () => void staged.commit());
  } finally {
    await staged.discard();
  }
}

/**
 * Joins a draft's parts into its recording and queues its processing (web app channel); the
 * processing job's id. The parts must run from 0 without a gap; when `expectedBytes` is given (an
 * upload of a known file) they must add up to it. Each part's file must still hold the bytes it
 * arrived with (sha256). A live recording's joined WebM carries no duration: the worker remuxes it
 * before decoding (meetings/processing.ts). If queueing fails (no free slot), the parts stay and
 * the draft can be finished later.
 */
export async function queueFinishedDraft(deps: DraftConnDeps, account: { userId: string; plan: Plan }, meetingId: string, expectedBytes?: number): Promise<string> {
  const { draft, parts } = await draftWithParts(deps.conn, account.userId, meetingId);
  const bytes = parts.reduce((total, part) => total + part.bytes, 0);
  const last = parts.at(-1)?.index ?? -1;
  const missing: number[] = [];
  for (let i = 0, at = 0; i <= last && missing.length < 100; i++) {
    if (parts[at]?.index === i) at++;
    else missing.push(i);
  }
  if (parts.length === 0 || missing.length > 0 || (expectedBytes !== undefined && bytes !== expectedBytes)) {
    const which = parts.length === 0 ? "No part has arrived yet." : missing.length ? `Missing parts: ${missing.join(", ")}.` : `The parts hold ${bytes} bytes of ${expectedBytes}.`;
    throw new ApiError("draft_incomplete", `The recording is not complete. ${which}`);
  }
  // The joined copy sits beside the parts until they are removed: the disk must hold both.
  if (roomAbove(deps.storage.space(), deps.minFreeDisk) < bytes) {
    throw new ApiError("insufficient_storage", "The server is low on disk space and cannot join this recording now. What arrived is kept; finish it later.");
  }
  const joining = await deps.storage.stage(draft.id, RECORDING, randomBase62(8));
  try {
    const out = await open(joining.path, "w", 0o600);
    try {
      // Part by part, without blocking the server: a 2 GB upload is about 250 parts of 8 MiB.
      for (const part of parts) {
        const content = await deps.storage.get(draft.id, draftPartName(part.index));
        if (!content) return await forgetLostPart(deps.conn, draft.id, part.index);
        if (content.length !== part.bytes || (await sha256Hex(content)) !== part.sha256) await forgetLostPart(deps.conn, draft.id, part.index);
        await out.write(content);
      }
    } finally {
      await out.close();
    }
    await joining.commit();
  } finally {
    await joining.discard();
  }
  let jobId = "";
  try {
    const audioSeconds = await deps.measureRecording(deps.storage.localPath(draft.id, RECORDING)).catch(() => null);
    const now = deps.clock.now();
    await withTx(deps.conn, async (tx) => {
      await closeDraft(tx, draft.id, now);
      jobId = await queueProcessing(tx, deps, account, draft.id, { firstStep: "decode", transcribeOnly: draft.transcribeOnly, documentTemplates: null, metadata: null, audioSeconds }, "webapp", now);
    });
  } catch (error) {
    await deps.storage.delete(draft.id, RECORDING);
    throw error;
  }
  await deps.storage.delete(draft.id, DRAFT_PARTS);
  return jobId;
}
