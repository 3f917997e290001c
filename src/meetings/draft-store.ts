import { and, count, eq, gt, lt, notExists, sum } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import { describeBytes } from "../uploads/multipart.ts";
import { MIN_PART_BYTES, type DraftLimits } from "./draft-limits.ts";
import { ownedMeetingRow, type MeetingRow } from "./store.ts";
import { draftParts, meetings } from "./table.ts";

/** A draft's rows: the draft meeting and the parts of its recording that arrived (draft_parts). */

async function ownedDraft(db: Queryable, userId: string, meetingId: string): Promise<MeetingRow> {
  const meeting = await ownedMeetingRow(db, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  if (meeting.status !== "draft") throw new ApiError("draft_closed", "This meeting's recording is complete; it takes no more parts.");
  return meeting;
}

/**
 * Refuses a new draft when the account already has as many open as it may (inside the transaction
 * that creates it, which holds the account's lock from here: two drafts opened at once are counted
 * one after the other on PostgreSQL too).
 */
export function assertDraftAdmitted(c: Conn, userId: string, limits: DraftLimits): Promise<void> {
  return run(c, async (db) => {
    await lockAccount(db, userId);
    const [drafts] = await db
      .select({ open: count() })
      .from(meetings)
      .where(and(eq(meetings.userId, userId), eq(meetings.status, "draft")));
    const open = drafts?.open ?? 0;
    if (open >= limits.maxOpen) {
      throw new ApiError(
        "draft_limit_reached",
        `You have ${open} unfinished recordings or uploads, the most an account may keep open. Finish or delete one of them first.`,
      );
    }
  });
}

/**
 * The checks a part must pass against what the draft and the account already hold; run before
 * its bytes are written and again in the transaction that stores it (a part sent in parallel may
 * have arrived meanwhile).
 */
async function admitPart(tx: Queryable, deps: DraftBounds, userId: string, meetingId: string, index: number, size: number): Promise<void> {
  // Part numbers stop below MAX_PARTS (storeDraftPart), which bounds their count.
  const [draft] = await tx.select({ bytes: sum(draftParts.bytes) }).from(draftParts).where(eq(draftParts.meetingId, meetingId));
  const previous = (
    await tx
      .select({ bytes: draftParts.bytes })
      .from(draftParts)
      .where(and(eq(draftParts.meetingId, meetingId), eq(draftParts.partIndex, index)))
      .limit(1)
  )[0]?.bytes;
  const small = size < MIN_PART_BYTES;
  // A part under the minimum can only be the last: nothing may lie after it, and it cannot be
  // followed by another part later. So a draft holds at most one small part, at its end.
  if (small) {
    const [after] = await tx
      .select({ n: count() })
      .from(draftParts)
      .where(and(eq(draftParts.meetingId, meetingId), gt(draftParts.partIndex, index)));
    if ((after?.n ?? 0) > 0) throw partRefused("too_small", `A part holds at least ${MIN_PART_BYTES} bytes, unless it is the recording's last.`);
  }
  const [smallBefore] = await tx
    .select({ n: count() })
    .from(draftParts)
    .where(and(eq(draftParts.meetingId, meetingId), lt(draftParts.partIndex, index), lt(draftParts.bytes, MIN_PART_BYTES)));
  if ((smallBefore?.n ?? 0) > 0) {
    throw partRefused(
      "invalid_value",
      `A part smaller than ${MIN_PART_BYTES} bytes arrived before this one, so it was the last: send it again whole before sending more.`,
    );
  }
  if (Number(draft?.bytes ?? 0) - (previous ?? 0) + size > deps.maxUploadBytes) {
    throw new ApiError("file_too_large", `A recording is at most ${describeBytes(deps.maxUploadBytes)}.`);
  }
  const [account] = await tx
    .select({ bytes: sum(draftParts.bytes) })
    .from(draftParts)
    .innerJoin(meetings, eq(meetings.id, draftParts.meetingId))
    .where(and(eq(meetings.userId, userId), eq(meetings.status, "draft")));
  const held = Number(account?.bytes ?? 0);
  if (held - (previous ?? 0) + size > deps.drafts.maxBytes) {
    throw new ApiError(
      "draft_limit_reached",
      `Your unfinished recordings and uploads hold ${held} bytes; an account may keep ${deps.drafts.maxBytes}. Finish or delete one of them first.`,
    );
  }
}

/** A 400 whose sentence says what is wrong with the part: the web app shows the sentence alone. */
export const partRefused = (code: string, message: string) => new ApiError("validation_error", message, { errors: [{ field: "part", code, message }] });

/** A part whose file is gone or holds other bytes than it arrived with: forgotten, so the browser sends it again. */
export async function forgetLostPart(c: Conn, meetingId: string, index: number): Promise<never> {
  await run(c, async (q) => {
    await q.delete(draftParts).where(and(eq(draftParts.meetingId, meetingId), eq(draftParts.partIndex, index)));
  });
  throw new ApiError("draft_incomplete", `The recording is not complete. Missing parts: ${index} (lost on the server: send it again).`);
}

/** What bounds a draft's parts: the upload limit, and the account's drafts. */
export interface DraftBounds {
  maxUploadBytes: number;
  drafts: DraftLimits;
}

/** One of the user's drafts (404 when not the user's; 409 draft_closed once finished). */
export function findOwnedDraft(c: Conn, userId: string, meetingId: string): Promise<MeetingRow> {
  return run(c, (q) => ownedDraft(q, userId, meetingId));
}

/** Draft part rows over a `Conn`: which arrived, in order, and their total size. */
export function draftPartsOf(c: Conn, meetingId: string): Promise<{ indexes: number[]; bytes: number }> {
  return run(c, async (db) => {
    const rows = await db
      .select({ index: draftParts.partIndex, bytes: draftParts.bytes })
      .from(draftParts)
      .where(eq(draftParts.meetingId, meetingId))
      .orderBy(draftParts.partIndex);
    return { indexes: rows.map((row) => row.index), bytes: rows.reduce((total, row) => total + row.bytes, 0) };
  });
}

/** How many parts a draft holds and their size, counted by the database. */
export function draftPartsCount(c: Conn, meetingId: string): Promise<{ parts: number; bytes: number }> {
  return run(c, async (db) => {
    const [row] = await db
      .select({ parts: count(), bytes: sum(draftParts.bytes) })
      .from(draftParts)
      .where(eq(draftParts.meetingId, meetingId));
    return { parts: row?.parts ?? 0, bytes: Number(row?.bytes ?? 0) };
  });
}

/** The part's checks against what the draft and the account hold, before its bytes are written. */
export function checkDraftPart(c: Conn, bounds: DraftBounds, userId: string, draftId: string, index: number, size: number): Promise<void> {
  return run(c, (q) => admitPart(q, bounds, userId, draftId, index, size));
}

/**
 * Records a part in one transaction: the draft still open and the part still admitted (a part
 * sent in parallel may have arrived meanwhile), its row written, the draft touched (the idle
 * sweep counts from here), then `place` (renames its file into place) before the commit.
 */
export function recordDraftPart(
  c: Conn,
  bounds: DraftBounds,
  userId: string,
  draftId: string,
  part: { index: number; bytes: number; sha256: string },
  now: number,
  place: () => void,
): Promise<void> {
  return runTx(c, async (tx) => {
    // The account's drafts are bounded in bytes: parts arriving at once are admitted one by one.
    await lockAccount(tx, userId);
    await ownedDraft(tx, userId, draftId);
    await admitPart(tx, bounds, userId, draftId, part.index, part.bytes);
    const { index, bytes, sha256 } = part;
    await tx
      .insert(draftParts)
      .values({ meetingId: draftId, partIndex: index, bytes, sha256, receivedAt: now })
      .onConflictDoUpdate({ target: [draftParts.meetingId, draftParts.partIndex], set: { bytes, sha256, receivedAt: now } });
    await tx.update(meetings).set({ updatedAt: now }).where(eq(meetings.id, draftId));
    place();
  });
}

/** One of the user's drafts and its parts, in order. */
export function draftWithParts(c: Conn, userId: string, meetingId: string) {
  return run(c, async (q) => {
    const draft = await ownedDraft(q, userId, meetingId);
    const parts = await q
      .select({ index: draftParts.partIndex, bytes: draftParts.bytes, sha256: draftParts.sha256 })
      .from(draftParts)
      .where(eq(draftParts.meetingId, draft.id))
      .orderBy(draftParts.partIndex);
    return { draft, parts };
  });
}

/** The draft becomes queued and its part rows go (inside the transaction that queues its job); 409 when finished already. */
export function closeDraft(c: Conn, draftId: string, now: number): Promise<void> {
  return run(c, async (tx) => {
    const opened = await tx
      .update(meetings)
      .set({ status: "queued", updatedAt: now })
      .where(and(eq(meetings.id, draftId), eq(meetings.status, "draft")))
      .returning({ id: meetings.id });
    if (opened.length === 0) throw new ApiError("draft_closed", "This meeting's recording was finished already.");
    await tx.delete(draftParts).where(eq(draftParts.meetingId, draftId));
  });
}

export type DraftPartRow = typeof draftParts.$inferInsert;

/** The drafts with no part rows (begun before the draft_parts table, or whose last part never committed). */
export function draftsWithoutParts(c: Conn): Promise<string[]> {
  return run(c, async (q) =>
    (
      await q
        .select({ id: meetings.id })
        .from(meetings)
        .where(and(eq(meetings.status, "draft"), notExists(q.select({ id: draftParts.meetingId }).from(draftParts).where(eq(draftParts.meetingId, meetings.id)))))
    ).map((row) => row.id),
  );
}

/** Part rows recorded from a draft's folder, in one transaction (rows already there are kept). */
export function insertDraftParts(c: Conn, rows: DraftPartRow[]): Promise<void> {
  return runTx(c, async (tx) => {
    for (const row of rows) await tx.insert(draftParts).values(row).onConflictDoNothing();
  });
}

/** The drafts nobody touched (created, or sent a part) since `before`. */
export function idleDraftsBefore(c: Conn, before: number): Promise<{ id: string; userId: string }[]> {
  return run(c, (q) =>
    q
      .select({ id: meetings.id, userId: meetings.userId })
      .from(meetings)
      .where(and(eq(meetings.status, "draft"), lt(meetings.updatedAt, before))),
  );
}
