import { and, asc, count, desc, eq } from "drizzle-orm";
import { users } from "../auth/table.ts";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import { toRfc3339 } from "../lib/time.ts";
import { oneLine } from "../transcripts/normalize.ts";
import { ownedMeetingRow } from "./store.ts";
import { reindexMeeting } from "./search-index-store.ts";
import { meetings, transcriptCorrections, transcripts } from "./table.ts";

export const MAX_CORRECTION_CHARS = 5000;

/** A segment's words after a correction, and how many versions the segment now has. */
export interface SegmentCorrection {
  text: string;
  version: number;
}

/** The words a person typed for a segment, on one line; 400 when empty or too long. */
export function correctionText(typed: string): string {
  const text = oneLine(typed);
  if (text.length === 0 || [...text].length > MAX_CORRECTION_CHARS) {
    throw ApiError.validation([{ field: "text", code: text.length === 0 ? "too_short" : "too_long", message: `The words of a segment: 1 to ${MAX_CORRECTION_CHARS} characters.` }]);
  }
  return text;
}

/**
 * Replaces the words of one transcript segment (its index in the transcript's segments), as a
 * person heard them: the transcripts row gets the new text, so exports, documents, search and a
 * regenerated report use it; the correction is kept as a new version with its author. Sending the
 * current text again changes nothing. Answers the segment's version number.
 * `text` already checked by correctionText; in a transaction of its own over a `Conn`.
 */
export function storeSegmentCorrection(c: Conn, userId: string, meetingId: string, segmentIndex: number, text: string, now: number): Promise<SegmentCorrection> {
  return runTx(c, (tx) => correctSegmentRows(tx, userId, meetingId, segmentIndex, text, now));
}

async function correctSegmentRows(tx: Queryable, userId: string, meetingId: string, segmentIndex: number, text: string, now: number): Promise<SegmentCorrection> {
  // The segments are read, changed and written back whole: another correction, a patch or a new
  // transcript of the account's meetings waits (PostgreSQL; SQLite serialises writers already).
  await lockAccount(tx, userId);
  const meeting = await ownedMeetingRow(tx, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  const [row] = await tx.select({ segments: transcripts.segments }).from(transcripts).where(eq(transcripts.meetingId, meeting.id)).limit(1);
  if (!row) throw new ApiError("transcript_not_ready", "The transcript is not ready yet. Wait for transcription.completed or poll the job.");
  const segment = Number.isInteger(segmentIndex) ? row.segments[segmentIndex] : undefined;
  if (!segment) throw ApiError.notFound(`Segment ${segmentIndex} of the transcript`);
  const versions = await versionCount(tx, meeting.id, segmentIndex);
  if (segment.text === text) return { text, version: versions };
  await tx.insert(transcriptCorrections).values({ meetingId: meeting.id, segmentIndex, previousText: segment.text, text, authorUserId: userId, createdAt: now });
  const segments = row.segments.map((s, i) => (i === segmentIndex ? { ...s, text } : s));
  await tx.update(transcripts).set({ segments }).where(eq(transcripts.meetingId, meeting.id));
  await tx.update(meetings).set({ updatedAt: now }).where(eq(meetings.id, meeting.id));
  await reindexMeeting(tx, meeting.id);
  return { text, version: versions + 1 };
}

/**
 * Takes back the last correction of one segment (issue 25, the web app's history): the segment
 * reads again as before it, and the correction leaves the history. 404 when the segment has none;
 * 400 when its words no longer are the correction's. Answers the words and
 * the versions left. In a transaction of its own over a `Conn`.
 */
export function undoSegmentCorrection(c: Conn, userId: string, meetingId: string, segmentIndex: number, now: number): Promise<SegmentCorrection> {
  return runTx(c, async (tx) => {
    await lockAccount(tx, userId);
    const meeting = await ownedMeetingRow(tx, userId, meetingId);
    if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
    const [row] = await tx.select({ segments: transcripts.segments }).from(transcripts).where(eq(transcripts.meetingId, meeting.id)).limit(1);
    const segment = row && Number.isInteger(segmentIndex) ? row.segments[segmentIndex] : undefined;
    if (!row || !segment) throw ApiError.notFound(`Segment ${segmentIndex} of the transcript`);
    const [last] = await tx
      .select()
      .from(transcriptCorrections)
      .where(and(eq(transcriptCorrections.meetingId, meeting.id), eq(transcriptCorrections.segmentIndex, segmentIndex)))
      .orderBy(desc(transcriptCorrections.id))
      .limit(1);
    if (!last) throw ApiError.notFound(`A correction of segment ${segmentIndex}`);
    if (last.text !== segment.text) throw ApiError.validation([{ field: "segment", code: "changed", message: "The segment's words changed since its last correction." }]);
    await tx.delete(transcriptCorrections).where(eq(transcriptCorrections.id, last.id));
    const segments = row.segments.map((s, i) => (i === segmentIndex ? { ...s, text: last.previousText } : s));
    await tx.update(transcripts).set({ segments }).where(eq(transcripts.meetingId, meeting.id));
    await tx.update(meetings).set({ updatedAt: now }).where(eq(meetings.id, meeting.id));
    await reindexMeeting(tx, meeting.id);
    return { text: last.previousText, version: await versionCount(tx, meeting.id, segmentIndex) };
  });
}

async function versionCount(db: Queryable, meetingId: string, segmentIndex: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(transcriptCorrections)
    .where(and(eq(transcriptCorrections.meetingId, meetingId), eq(transcriptCorrections.segmentIndex, segmentIndex)));
  return row?.n ?? 0;
}

/** Every correction of one of the user's meetings, oldest first, each with its version and author. */
export function correctionsOf(c: Conn, userId: string, meetingId: string) {
  return run(c, async (q) => {
    const meeting = await ownedMeetingRow(q, userId, meetingId);
    if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
    const rows = await q
      .select({ c: transcriptCorrections, email: users.email })
      .from(transcriptCorrections)
      .leftJoin(users, eq(users.id, transcriptCorrections.authorUserId))
      .where(eq(transcriptCorrections.meetingId, meeting.id))
      .orderBy(asc(transcriptCorrections.id));
    const seen = new Map<number, number>();
    return rows.map(({ c, email }) => {
      const version = (seen.get(c.segmentIndex) ?? 0) + 1;
      seen.set(c.segmentIndex, version);
      return {
        object: "transcript_correction" as const,
        segment_index: c.segmentIndex,
        version,
        text: c.text,
        previous_text: c.previousText,
        author: { id: c.authorUserId, email: email ?? null },
        created_at: toRfc3339(c.createdAt),
      };
    });
  });
}

/** The segments of a meeting a person corrected, by index. */
export function segmentsCorrected(c: Conn, meetingId: string): Promise<Set<number>> {
  return run(c, async (q) => {
    const rows = await q.selectDistinct({ index: transcriptCorrections.segmentIndex }).from(transcriptCorrections).where(eq(transcriptCorrections.meetingId, meetingId));
    return new Set(rows.map((row) => row.index));
  });
}

/** A transcript made again replaces the words the corrections were about: they go with it. */
export async function forgetCorrections(tx: Queryable, meetingId: string): Promise<void> {
  await tx.delete(transcriptCorrections).where(eq(transcriptCorrections.meetingId, meetingId));
}
