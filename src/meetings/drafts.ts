import { and, count, eq, gt, lt, sum } from "drizzle-orm";
import { createHash } from "node:crypto";
import { renameSync } from "node:fs";
import { mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Plan } from "../auth/plans.ts";
import type { Db, Queryable } from "../db/client.ts";
import { connOf, run, runTx, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import { randomBase62 } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { headroom, type DiskFloor } from "../storage/disk-space.ts";
import { looksLikeRecording, MEDIA_HEAD_BYTES, NOT_A_RECORDING_MESSAGE } from "../uploads/media-sniff.ts";
import { describeBytes } from "../uploads/multipart.ts";
import { draftPartsDir, recordingPath } from "../storage/paths.ts";
import { MAX_UPLOAD_FILE_BYTES } from "../uploads/limits.ts";
import type { BillingSettings } from "../usage/settings.ts";
import { enqueueProcessing } from "./create.ts";
import { assertDiskAdmitsRecordings } from "./disk-admission.ts";
import { ownedMeetingRow } from "./store.ts";
import { draftParts, meetings } from "./table.ts";

/**
 * A draft's recording arrives in numbered parts (the web app's recorder sends one whenever it
 * holds enough, its uploader one per slice of a large file), each stored as it comes, so a dropped
 * connection or a closed tab loses only the parts not yet sent: the browser sends the missing
 * ones again and finishes. What arrived is kept in the draft_parts table, written in the step
 * that renames a part's file into place, so no request lists or stats a draft's folder.
 *
 * Parts are bounded in size, from below (every part but the last) and above, and in number; all
 * of a draft's parts together by the upload limit, and all of an account's open drafts by
 * `DraftLimits`.
 */
export const MAX_PART_BYTES = 16 * 1024 * 1024;
/**
 * The least a part holds, unless it is the draft's last: the recorder gathers its 4-second chunks
 * until they reach it (islands/recorder.ts), the uploader's slices are 8 MiB. Without it a
 * client could store a recording as a million one-byte files.
 */
export const MIN_PART_BYTES = 256 * 1024;
/** As many parts as a recording at the upload limit needs at the minimum size (7,630 for 2 GB). */
export const MAX_PARTS = Math.ceil(MAX_UPLOAD_FILE_BYTES / MIN_PART_BYTES);

/** Bounds on one account's drafts (--max-open-drafts, --max-draft-bytes, --draft-idle-days). */
export interface DraftLimits {
  /** Drafts open at once. */
  maxOpen: number;
  /** Bytes the parts of all open drafts hold together. */
  maxBytes: number;
  /** How long a draft may go untouched before the retention sweep deletes it. */
  idleMs: number;
}

const partName = (index: number) => String(index).padStart(6, "0");

/** The web app's pages' deps until they call meetings/app.ts, which hands a `Conn`. */
export type DraftDeps = Omit<DraftConnDeps, "conn"> & { db: Db };

/** What receiving and finishing a draft need: the database as a `Conn` (meetings/app.ts). */
export interface DraftConnDeps {
  conn: Conn;
  dataDir: string;
  clock: Clock;
  slots: ParallelSlots;
  billing: BillingSettings;
  minFreeDisk: DiskFloor;
  maxUploadBytes: number;
  drafts: DraftLimits;
  /** The joined recording's announced duration, reserved at admission (meetings/create.ts). */
  measureRecording(path: string): Promise<number | null>;
}

function ownedDraft(db: Queryable, userId: string, meetingId: string) {
  const meeting = ownedMeetingRow(db, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  if (meeting.status !== "draft") throw new ApiError("draft_closed", "This meeting's recording is complete; it takes no more parts.");
  return meeting;
}

/** Draft part rows over a `Conn`: which arrived (listDraftParts) and how many (draftPartsSummary). */
export function draftPartsOf(c: Conn, meetingId: string): Promise<{ indexes: number[]; bytes: number }> {
  return run(c, (q) => listDraftParts(q, meetingId));
}

export function draftPartsCount(c: Conn, meetingId: string): Promise<{ parts: number; bytes: number }> {
  return run(c, (q) => draftPartsSummary(q, meetingId));
}

/** Refuses a new draft when the account already has as many open as it may. */
export function assertDraftAdmitted(db: Queryable, userId: string, limits: DraftLimits): void {
  const open = db
    .select({ n: count() })
    .from(meetings)
    .where(and(eq(meetings.userId, userId), eq(meetings.status, "draft")))
    .get()!.n;
  if (open >= limits.maxOpen) {
    throw new ApiError(
      "draft_limit_reached",
      `You have ${open} unfinished recordings or uploads, the most an account may keep open. Finish or delete one of them first.`,
    );
  }
}

/** The parts a draft holds, from its table: their numbers in order and their total size. */
export function listDraftParts(db: Queryable, meetingId: string): { indexes: number[]; bytes: number } {
  const rows = db
    .select({ index: draftParts.partIndex, bytes: draftParts.bytes })
    .from(draftParts)
    .where(eq(draftParts.meetingId, meetingId))
    .orderBy(draftParts.partIndex)
    .all();
  return { indexes: rows.map((row) => row.index), bytes: rows.reduce((total, row) => total + row.bytes, 0) };
}

/** How many parts a draft holds and their size, counted by the database. */
export function draftPartsSummary(db: Queryable, meetingId: string): { parts: number; bytes: number } {
  const row = db
    .select({ parts: count(), bytes: sum(draftParts.bytes) })
    .from(draftParts)
    .where(eq(draftParts.meetingId, meetingId))
    .get();
  return { parts: row?.parts ?? 0, bytes: Number(row?.bytes ?? 0) };
}

/**
 * The checks a part must pass against what the draft and the account already hold; run before
 * its bytes are written and again in the transaction that stores it (a part sent in parallel may
 * have arrived meanwhile).
 */
function admitPart(tx: Queryable, deps: Pick<DraftConnDeps, "maxUploadBytes" | "drafts">, userId: string, meetingId: string, index: number, size: number): void {
  // Part numbers stop below MAX_PARTS (storeDraftPart), which bounds their count.
  const draft = tx.select({ bytes: sum(draftParts.bytes) }).from(draftParts).where(eq(draftParts.meetingId, meetingId)).get()!;
  const previous = tx
    .select({ bytes: draftParts.bytes })
    .from(draftParts)
    .where(and(eq(draftParts.meetingId, meetingId), eq(draftParts.partIndex, index)))
    .get()?.bytes;
  const small = size < MIN_PART_BYTES;
  // A part under the minimum can only be the last: nothing may lie after it, and it cannot be
  // followed by another part later. So a draft holds at most one small part, at its end.
  if (small) {
    const after = tx
      .select({ n: count() })
      .from(draftParts)
      .where(and(eq(draftParts.meetingId, meetingId), gt(draftParts.partIndex, index)))
      .get()!.n;
    if (after > 0) throw partRefused("too_small", `A part holds at least ${MIN_PART_BYTES} bytes, unless it is the recording's last.`);
  }
  const smallBefore = tx
    .select({ n: count() })
    .from(draftParts)
    .where(and(eq(draftParts.meetingId, meetingId), lt(draftParts.partIndex, index), lt(draftParts.bytes, MIN_PART_BYTES)))
    .get()!.n;
  if (smallBefore > 0) {
    throw partRefused(
      "invalid_value",
      `A part smaller than ${MIN_PART_BYTES} bytes arrived before this one, so it was the last: send it again whole before sending more.`,
    );
  }
  if (Number(draft.bytes ?? 0) - (previous ?? 0) + size > deps.maxUploadBytes) {
    throw new ApiError("file_too_large", `A recording is at most ${describeBytes(deps.maxUploadBytes)}.`);
  }
  const held = Number(
    tx
      .select({ bytes: sum(draftParts.bytes) })
      .from(draftParts)
      .innerJoin(meetings, eq(meetings.id, draftParts.meetingId))
      .where(and(eq(meetings.userId, userId), eq(meetings.status, "draft")))
      .get()?.bytes ?? 0,
  );
  if (held - (previous ?? 0) + size > deps.drafts.maxBytes) {
    throw new ApiError(
      "draft_limit_reached",
      `Your unfinished recordings and uploads hold ${held} bytes; an account may keep ${deps.drafts.maxBytes}. Finish or delete one of them first.`,
    );
  }
}

/** A 400 whose sentence says what is wrong with the part: the web app shows the sentence alone. */
const partRefused = (code: string, message: string) => new ApiError("validation_error", message, { errors: [{ field: "part", code, message }] });

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

/** storeDraftPart for the web app's pages until they call meetings/app.ts (then deleted). */
export function storeDraftPart(deps: DraftDeps, userId: string, meetingId: string, index: number, bytes: Uint8Array): Promise<void> {
  return receiveDraftPart({ ...deps, conn: connOf(deps.db) }, userId, meetingId, index, bytes);
}

/** Stores part `index` of one of the user's drafts (again, if it was sent before: the last copy wins). */
export async function receiveDraftPart(deps: DraftConnDeps, userId: string, meetingId: string, index: number, bytes: Uint8Array): Promise<void> {
  const draft = await run(deps.conn, (q) => ownedDraft(q, userId, meetingId));
  if (!Number.isInteger(index) || index < 0 || index >= MAX_PARTS) {
    throw partRefused("invalid_value", `A part number is an integer from 0 to ${MAX_PARTS - 1}.`);
  }
  if (bytes.length === 0) throw partRefused("too_short", "A part is never empty.");
  // The recording's first bytes say what it is: a file that is no recording is refused at its first part, not after the whole upload.
  if (index === 0 && !looksLikeRecording(bytes.subarray(0, MEDIA_HEAD_BYTES))) throw new ApiError("unsupported_media", NOT_A_RECORDING_MESSAGE);
  await run(deps.conn, (q) => admitPart(q, deps, userId, draft.id, index, bytes.length));
  assertDiskAdmitsRecordings(deps.dataDir, deps.minFreeDisk);
  const dir = draftPartsDir(deps.dataDir, draft.id);
  const path = join(dir, partName(index));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const sha256 = await sha256Hex(bytes);
  // Written whole to a temporary name off the event loop, then renamed into place in the
  // transaction that records it: a part on disk is complete, and its row says which bytes it holds.
  const tmp = `${path}.${randomBase62(8)}.tmp`;
  await writeFile(tmp, bytes, { mode: 0o600 });
  try {
    await runTx(deps.conn, (tx) => {
      ownedDraft(tx, userId, draft.id);
      admitPart(tx, deps, userId, draft.id, index, bytes.length);
      const now = deps.clock.now();
      tx.insert(draftParts)
        .values({ meetingId: draft.id, partIndex: index, bytes: bytes.length, sha256, receivedAt: now })
        .onConflictDoUpdate({ target: [draftParts.meetingId, draftParts.partIndex], set: { bytes: bytes.length, sha256, receivedAt: now } })
        .run();
      // A part received touches the draft: the idle sweep counts from here.
      tx.update(meetings).set({ updatedAt: now }).where(eq(meetings.id, draft.id)).run();
      renameSync(tmp, path);
    });
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** A part whose file is gone or holds other bytes than it arrived with: forgotten, so the browser sends it again. */
async function forgetLostPart(c: Conn, meetingId: string, index: number): Promise<never> {
  await run(c, (q) =>
    q
      .delete(draftParts)
      .where(and(eq(draftParts.meetingId, meetingId), eq(draftParts.partIndex, index)))
      .run(),
  );
  throw new ApiError("draft_incomplete", `The recording is not complete. Missing parts: ${index} (lost on the server: send it again).`);
}

/**
 * Joins a draft's parts into its recording and queues its processing (web app channel). The
 * parts must run from 0 without a gap; when `expectedBytes` is given (an upload of a known file)
 * they must add up to it. Each part's file must still hold the bytes it arrived with (sha256).
 * A live recording's joined WebM carries no duration: the worker remuxes it before decoding
 * (meetings/processing.ts). If queueing fails (no free slot), the parts stay and the draft can be
 * finished later.
 */
export function finishDraft(deps: DraftDeps, account: { userId: string; plan: Plan }, meetingId: string, expectedBytes?: number): Promise<string> {
  return finishDraftOver({ ...deps, conn: connOf(deps.db) }, account, meetingId, expectedBytes);
}

/** finishDraft over a `Conn` (meetings/app.ts): the processing job's id. */
export async function finishDraftOver(deps: DraftConnDeps, account: { userId: string; plan: Plan }, meetingId: string, expectedBytes?: number): Promise<string> {
  const { draft, parts } = await run(deps.conn, (q) => {
    const draft = ownedDraft(q, account.userId, meetingId);
    const parts = q
      .select({ index: draftParts.partIndex, bytes: draftParts.bytes, sha256: draftParts.sha256 })
      .from(draftParts)
      .where(eq(draftParts.meetingId, draft.id))
      .orderBy(draftParts.partIndex)
      .all();
    return { draft, parts };
  });
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
  if (headroom(deps.dataDir, deps.minFreeDisk) < bytes) {
    throw new ApiError("insufficient_storage", "The server is low on disk space and cannot join this recording now. What arrived is kept; finish it later.");
  }
  const target = recordingPath(deps.dataDir, draft.id);
  const joining = `${target}.${randomBase62(8)}.tmp`;
  const dir = draftPartsDir(deps.dataDir, draft.id);
  try {
    const out = await open(joining, "w", 0o600);
    try {
      // Part by part, without blocking the server: a 2 GB upload is about 250 parts of 8 MiB.
      for (const part of parts) {
        let content: Uint8Array;
        try {
          content = await readFile(join(dir, partName(part.index)));
        } catch {
          return await forgetLostPart(deps.conn, draft.id, part.index);
        }
        if (content.length !== part.bytes || (await sha256Hex(content)) !== part.sha256) await forgetLostPart(deps.conn, draft.id, part.index);
        await out.write(content);
      }
    } finally {
      await out.close();
    }
    await rename(joining, target);
  } finally {
    await rm(joining, { force: true });
  }
  let jobId = "";
  try {
    const audioSeconds = await deps.measureRecording(target).catch(() => null);
    const now = deps.clock.now();
    await runTx(deps.conn, (tx) => {
      const opened = tx
        .update(meetings)
        .set({ status: "queued", updatedAt: now })
        .where(and(eq(meetings.id, draft.id), eq(meetings.status, "draft")))
        .returning({ id: meetings.id })
        .all();
      if (opened.length === 0) throw new ApiError("draft_closed", "This meeting's recording was finished already.");
      tx.delete(draftParts).where(eq(draftParts.meetingId, draft.id)).run();
      jobId = enqueueProcessing(tx, deps, account, draft.id, { firstStep: "decode", transcribeOnly: draft.transcribeOnly, documentTemplates: null, metadata: null, audioSeconds }, "webapp", now);
    });
  } catch (error) {
    await rm(target, { force: true });
    throw error;
  }
  await rm(dir, { recursive: true, force: true });
  return jobId;
}
