import { and, desc, eq } from "drizzle-orm";
import { getClient, renderClient } from "../clients/service.ts";
import type { Queryable } from "../db/client.ts";
import { renderJob } from "../jobs/query.ts";
import { jobs } from "../jobs/table.ts";
import { numericId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import { meetings, meetingTags, participants, summaries, transcripts } from "./table.ts";

export type MeetingRow = typeof meetings.$inferSelect;
export type ParticipantRow = typeof participants.$inferSelect;
export type SummaryRow = typeof summaries.$inferSelect;

export function renderParticipant(row: ParticipantRow) {
  return {
    id: numericId("par", row.id),
    name: row.name,
    email: row.email,
    speaker_labels: JSON.parse(row.speakerLabels) as string[],
  };
}

export function renderSummary(row: SummaryRow) {
  return {
    object: "summary" as const,
    meeting_id: row.meetingId,
    title: row.title,
    language: row.language,
    markdown: row.markdown,
    structured: row.structured === null ? null : (JSON.parse(row.structured) as Record<string, unknown>),
    model: row.model,
    created_at: toRfc3339(row.createdAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}

export function meetingTagsOf(db: Queryable, meetingId: string): string[] {
  return db
    .select({ tag: meetingTags.tag })
    .from(meetingTags)
    .where(eq(meetingTags.meetingId, meetingId))
    .orderBy(meetingTags.tag)
    .all()
    .map((r) => r.tag);
}

export function participantsOf(db: Queryable, meetingId: string): ParticipantRow[] {
  return db.select().from(participants).where(eq(participants.meetingId, meetingId)).orderBy(participants.id).all();
}

export function latestJobOf(db: Queryable, meetingId: string) {
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, "meeting_processing")))
    .orderBy(desc(jobs.createdAt))
    .limit(1)
    .get();
}

/** The full meeting object (SPEC 2): report, participants, documents and latest job included. */
export function renderMeeting(db: Queryable, row: MeetingRow, publicApiUrl: string) {
  const summary = db.select().from(summaries).where(eq(summaries.meetingId, row.id)).get();
  const hasTranscript = db.select({ id: transcripts.meetingId }).from(transcripts).where(eq(transcripts.meetingId, row.id)).get() !== undefined;
  const client = row.clientId === null ? undefined : getClient(db, row.userId, row.clientId);
  const job = latestJobOf(db, row.id);
  return {
    id: row.id,
    object: "meeting" as const,
    title: row.title,
    status: row.status,
    transcribe_only: row.transcribeOnly,
    recorded_at: toRfc3339(row.recordedAt),
    created_at: toRfc3339(row.createdAt),
    updated_at: toRfc3339(row.updatedAt),
    duration_seconds: row.durationSeconds,
    language: row.language,
    source: row.source,
    recording_type: row.recordingType,
    tags: meetingTagsOf(db, row.id),
    client: client ? renderClient(client) : null,
    has_transcript: hasTranscript,
    has_summary: summary !== undefined,
    web_url: `${publicApiUrl}/v1/meetings/${row.id}`,
    summary: summary ? renderSummary(summary) : null,
    participants: participantsOf(db, row.id).map(renderParticipant),
    // Documents arrive with the documents resource; until then a meeting has none.
    documents: [] as unknown[],
    job: job ? renderJob(job) : null,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
  };
}

export function getOwnedMeetingRow(db: Queryable, userId: string, meetingId: string): MeetingRow | undefined {
  return db
    .select()
    .from(meetings)
    .where(and(eq(meetings.id, meetingId.toLowerCase()), eq(meetings.userId, userId)))
    .get();
}
