import { count, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import type { StepResult } from "../worker/protocol.ts";
import { forgetCorrections } from "./corrections-store.ts";
import { reindexMeeting } from "./search-index-store.ts";
import { applyVocabulary, asStored } from "./vocabulary-store.ts";
import { meetings, participants, reports, transcripts } from "./table.ts";

// What the meeting_processing kind (processing.ts) reads and writes of a meeting as its job moves.

type ReportResult = Extract<StepResult, { step: "summarize" }>["report"];

async function findMeetingIn(q: Queryable, meetingId: string) {
  return (await q.select().from(meetings).where(eq(meetings.id, meetingId)).limit(1))[0];
}

export type ProcessedMeeting = NonNullable<Awaited<ReturnType<typeof findMeetingIn>>>;

export function findMeeting(c: Conn, meetingId: string): Promise<ProcessedMeeting | undefined> {
  return run(c, (q) => findMeetingIn(q, meetingId));
}

export async function updateMeeting(c: Conn, meetingId: string, values: Partial<typeof meetings.$inferInsert>): Promise<void> {
  await run(c, async (q) => {
    await q.update(meetings).set(values).where(eq(meetings.id, meetingId));
  });
}

export function participantCount(c: Conn, meetingId: string): Promise<number> {
  return run(c, async (q) => (await q.select({ n: count() }).from(participants).where(eq(participants.meetingId, meetingId)))[0]?.n ?? 0);
}

/** The names of the meeting's participants, in the order they were added. */
export function participantNames(c: Conn, meetingId: string): Promise<string[]> {
  return run(c, async (q) => (await q.select({ name: participants.name }).from(participants).where(eq(participants.meetingId, meetingId)).orderBy(participants.id)).map((p) => p.name));
}

export function hasTranscript(c: Conn, meetingId: string): Promise<boolean> {
  return run(c, async (q) => (await q.select({ id: transcripts.meetingId }).from(transcripts).where(eq(transcripts.meetingId, meetingId)).limit(1)).length > 0);
}

/** Characters of the meeting's report Markdown (0 without one): what its documents will read. */
export function reportLength(c: Conn, meetingId: string): Promise<number> {
  return run(c, async (q) => (await q.select({ markdown: reports.markdown }).from(reports).where(eq(reports.meetingId, meetingId)).limit(1))[0]?.markdown.length ?? 0);
}

/**
 * The diarize step's transcript into the transcripts table, and the search index. Answers the
 * transcript as stored: the same object, or a copy whose words the account's glossary changed.
 */
export async function storeTranscript(tx: Queryable, meetingId: string, transcript: StoredTranscript, now: number): Promise<StoredTranscript> {
  const values = {
    meetingId,
    language: transcript.language,
    durationSeconds: Math.round(transcript.durationSeconds),
    model: transcript.model,
    speakers: transcript.speakers,
    segments: transcript.segments,
    speakerTurns: transcript.turns,
    createdAt: now,
  };
  await tx.insert(transcripts).values(values).onConflictDoUpdate({ target: transcripts.meetingId, set: values });
  await forgetCorrections(tx, meetingId);
  // After forgetting the old corrections: the glossary's replacements are this transcript's first ones.
  const changed = await applyVocabulary(tx, meetingId, now);
  await reindexMeeting(tx, meetingId);
  return asStored(transcript, changed);
}

/** The summarize step's report into its table; the AI title replaces a title taken from a file name. */
export async function storeReport(tx: Queryable, meetingId: string, report: ReportResult, now: number): Promise<void> {
  const values = {
    meetingId,
    title: report.title,
    language: report.language,
    markdown: report.markdown,
    structured: report.structured,
    model: report.model,
    createdAt: now,
    updatedAt: now,
  };
  await tx.insert(reports).values(values).onConflictDoUpdate({ target: reports.meetingId, set: { ...values, createdAt: undefined } });
  // Never a title the client gave or pinned.
  const [current] = await tx.select({ titleSource: meetings.titleSource }).from(meetings).where(eq(meetings.id, meetingId)).limit(1);
  if (current && current.titleSource !== "user" && report.title.trim()) {
    await tx.update(meetings).set({ title: report.title.trim().slice(0, 300), titleSource: "ai", updatedAt: now }).where(eq(meetings.id, meetingId));
  }
  await reindexMeeting(tx, meetingId);
}
