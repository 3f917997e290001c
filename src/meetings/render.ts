import { and, desc, eq, inArray } from "drizzle-orm";
import { renderClient, type ClientRow } from "../clients/service.ts";
import { clients } from "../clients/table.ts";
import type { Queryable } from "../db/client.ts";
import { documentsOfMeetings, type renderDocument } from "../documents/query.ts";
import { renderJob, type JobRow } from "../jobs/query.ts";
import { jobs } from "../jobs/table.ts";
import { numericId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import { renderReport } from "../reports/render.ts";
import { meetings, meetingTags, participants, reports, transcripts } from "./table.ts";

export type MeetingRow = typeof meetings.$inferSelect;
export type ParticipantRow = typeof participants.$inferSelect;
export type ReportRow = typeof reports.$inferSelect;

export function renderParticipant(row: ParticipantRow) {
  return {
    id: numericId("par", row.id),
    object: "participant" as const,
    name: row.name,
    email: row.email,
    speaker_labels: JSON.parse(row.speakerLabels) as string[],
  };
}

/** A transcript speaker attributed to no one (the participants listing): id null, named by its label. */
export function renderUnattributedSpeaker(label: string) {
  return { id: null, object: "participant" as const, name: label, email: null, speaker_labels: [label] };
}

export function participantsOf(db: Queryable, meetingId: string): ParticipantRow[] {
  return db.select().from(participants).where(eq(participants.meetingId, meetingId)).orderBy(participants.id).all();
}


/** What a meeting shows beside its own row, loaded for a whole page of meetings at once. */
interface MeetingExtras {
  report: ReportRow | undefined;
  hasTranscript: boolean;
  client: ClientRow | undefined;
  job: JobRow | undefined;
  tags: string[];
  participants: ParticipantRow[];
  documents: ReturnType<typeof renderDocument>[];
}

/**
 * The related rows of these meetings in seven queries whatever their number (a list page of 100
 * meetings costs the same statements as one meeting): reports, transcript presence, clients,
 * the latest processing job of each, tags, participants, documents.
 */
function loadExtras(db: Queryable, rows: readonly MeetingRow[]): Map<string, MeetingExtras> {
  const ids = rows.map((r) => r.id);
  const extras = new Map<string, MeetingExtras>(
    ids.map((id) => [id, { report: undefined, hasTranscript: false, client: undefined, job: undefined, tags: [], participants: [], documents: [] }]),
  );
  if (!ids.length) return extras;
  for (const report of db.select().from(reports).where(inArray(reports.meetingId, ids)).all()) extras.get(report.meetingId)!.report = report;
  for (const { id } of db.select({ id: transcripts.meetingId }).from(transcripts).where(inArray(transcripts.meetingId, ids)).all()) {
    extras.get(id)!.hasTranscript = true;
  }
  const clientIds = [...new Set(rows.map((r) => r.clientId).filter((id): id is number => id !== null))];
  const clientRows = clientIds.length ? db.select().from(clients).where(inArray(clients.id, clientIds)).all() : [];
  const clientsById = new Map(clientRows.map((c) => [c.id, c]));
  for (const row of rows) {
    // A client of another account is never shown (the row's client_id always is the owner's own).
    const client = row.clientId === null ? undefined : clientsById.get(row.clientId);
    extras.get(row.id)!.client = client && client.userId === row.userId ? client : undefined;
  }
  // The newest API meeting_processing job per meeting: jobs come newest first, the first seen wins.
  // A web app job (a report written again in the web app) is never the one an API meeting shows.
  const jobRows = db
    .select()
    .from(jobs)
    .where(and(inArray(jobs.meetingId, ids), eq(jobs.kind, "meeting_processing"), eq(jobs.channel, "api")))
    .orderBy(desc(jobs.createdAt))
    .all();
  for (const job of jobRows) {
    const entry = extras.get(job.meetingId!)!;
    entry.job ??= job;
  }
  for (const { meetingId, tag } of db.select().from(meetingTags).where(inArray(meetingTags.meetingId, ids)).orderBy(meetingTags.tag).all()) {
    extras.get(meetingId)!.tags.push(tag);
  }
  for (const participant of db.select().from(participants).where(inArray(participants.meetingId, ids)).orderBy(participants.id).all()) {
    extras.get(participant.meetingId)!.participants.push(participant);
  }
  for (const [meetingId, list] of documentsOfMeetings(db, ids)) extras.get(meetingId)!.documents = list;
  return extras;
}

/** The meeting's page in the web app: the site's root is the API's public URL without its /api. */
export function meetingWebUrl(publicApiUrl: string, meetingId: string): string {
  return `${publicApiUrl.replace(/\/api$/, "")}/meetings/${meetingId}`;
}

function renderWith(row: MeetingRow, extras: MeetingExtras, publicApiUrl: string) {
  const { report, job } = extras;
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
    tags: extras.tags,
    client: extras.client ? renderClient(extras.client) : null,
    has_transcript: extras.hasTranscript,
    has_summary: report !== undefined,
    web_url: meetingWebUrl(publicApiUrl, row.id),
    summary: report ? renderReport(report) : null,
    participants: extras.participants.map(renderParticipant),
    documents: extras.documents,
    // The latest processing job for meetings created via the API; null for the web app's (SPEC 2).
    job: job ? renderJob(job) : null,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
  };
}

/** Full meeting objects (SPEC 2) for a page of meetings, with a constant number of queries. */
export function renderMeetings(db: Queryable, rows: readonly MeetingRow[], publicApiUrl: string) {
  const extras = loadExtras(db, rows);
  return rows.map((row) => renderWith(row, extras.get(row.id)!, publicApiUrl));
}

/** The full meeting object (SPEC 2): report, participants, documents and latest job included. */
export function renderMeeting(db: Queryable, row: MeetingRow, publicApiUrl: string) {
  return renderMeetings(db, [row], publicApiUrl)[0]!;
}

export function getOwnedMeetingRow(db: Queryable, userId: string, meetingId: string): MeetingRow | undefined {
  return db
    .select()
    .from(meetings)
    .where(and(eq(meetings.id, meetingId.toLowerCase()), eq(meetings.userId, userId)))
    .get();
}
