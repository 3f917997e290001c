import { count, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import type { StepResult } from "../worker/protocol.ts";
import { forgetCorrections } from "./corrections-store.ts";
import { reindexMeeting } from "./search-index-store.ts";
import { meetings, participants, reports, transcripts } from "./table.ts";

// What the meeting_processing kind (processing.ts) reads and writes of a meeting as its job moves.

type ReportResult = Extract<StepResult, { step: "summarize" }>["report"];

function findMeetingIn(q: Queryable, meetingId: string) {
  return q.select().from(meetings).where(eq(meetings.id, meetingId)).get();
}

export type ProcessedMeeting = NonNullable<ReturnType<typeof findMeetingIn>>;

export function findMeeting(c: Conn, meetingId: string): Promise<ProcessedMeeting | undefined> {
  return run(c, (q) => findMeetingIn(q, meetingId));
}

export async function updateMeeting(c: Conn, meetingId: string, values: Partial<typeof meetings.$inferInsert>): Promise<void> {
  await run(c, (q) => q.update(meetings).set(values).where(eq(meetings.id, meetingId)).run());
}

export function participantCount(c: Conn, meetingId: string): Promise<number> {
  return run(c, (q) => q.select({ n: count() }).from(participants).where(eq(participants.meetingId, meetingId)).get()?.n ?? 0);
}

export function hasTranscript(c: Conn, meetingId: string): Promise<boolean> {
  return run(c, (q) => q.select({ id: transcripts.meetingId }).from(transcripts).where(eq(transcripts.meetingId, meetingId)).get() !== undefined);
}

/** Characters of the meeting's report Markdown (0 without one): what its documents will read. */
export function reportLength(c: Conn, meetingId: string): Promise<number> {
  return run(c, (q) => q.select({ markdown: reports.markdown }).from(reports).where(eq(reports.meetingId, meetingId)).get()?.markdown.length ?? 0);
}

/** The diarize step's transcript into the transcripts table, and the search index. */
export function storeTranscript(tx: Queryable, meetingId: string, transcript: StoredTranscript, now: number): void {
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
  tx.insert(transcripts).values(values).onConflictDoUpdate({ target: transcripts.meetingId, set: values }).run();
  forgetCorrections(tx, meetingId);
  reindexMeeting(tx, meetingId);
}

/** The summarize step's report into its table; the AI title replaces a title taken from a file name. */
export function storeReport(tx: Queryable, meetingId: string, report: ReportResult, now: number): void {
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
  tx.insert(reports).values(values).onConflictDoUpdate({ target: reports.meetingId, set: { ...values, createdAt: undefined } }).run();
  // Never a title the client gave or pinned.
  const current = tx.select({ titleSource: meetings.titleSource }).from(meetings).where(eq(meetings.id, meetingId)).get();
  if (current && current.titleSource !== "user" && report.title.trim()) {
    tx.update(meetings).set({ title: report.title.trim().slice(0, 300), titleSource: "ai", updatedAt: now }).where(eq(meetings.id, meetingId)).run();
  }
  reindexMeeting(tx, meetingId);
}
