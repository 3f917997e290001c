import { renderClient } from "../clients/service.ts";
import type { Conn } from "../db/conn.ts";
import { renderJob } from "../jobs/query.ts";
import { numericId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import { renderReport } from "../reports/render.ts";
import { retentionTimes } from "../retention/policy.ts";
import { renderRedaction } from "./redaction.ts";
import { meetingExtras, type MeetingExtras, type MeetingRow, type ParticipantRow } from "./store.ts";

/*
 * The API's meeting objects (SPEC 2), rendered from the rows store.ts loads: a meeting's own row
 * and its extras (report, transcript presence, client, latest job, tags, participants, documents).
 */

export function renderParticipant(row: ParticipantRow) {
  return {
    id: numericId("par", row.id),
    object: "participant" as const,
    name: row.name,
    email: row.email,
    speaker_labels: row.speakerLabels,
  };
}

/** A transcript speaker attributed to no one (the participants listing): id null, named by its label. */
export function renderUnattributedSpeaker(label: string) {
  return { id: null, object: "participant" as const, name: label, email: null, speaker_labels: [label] };
}

/** The meeting's page in the web app: the site's root is the API's public URL without its /api. */
export function meetingWebUrl(publicApiUrl: string, meetingId: string): string {
  return `${publicApiUrl.replace(/\/api$/, "")}/meetings/${meetingId}`;
}

/** The full meeting object (SPEC 2) of a row and what store.ts loaded beside it: report, participants, documents and latest job included. */
export function renderMeeting(row: MeetingRow, extras: MeetingExtras, publicApiUrl: string) {
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
    metadata: row.metadata,
    redaction: renderRedaction(row.redaction, row.redactionApplied),
    legal_hold: row.legalHold,
    legal_hold_inherited: extras.client?.legalHold ?? false,
    retention: renderRetention(row, extras),
    recording_deleted_at: row.recordingDeletedAt === null ? null : toRfc3339(row.recordingDeletedAt),
  };
}

/**
 * When the account's retention policy deletes the meeting, and its recording alone (issue 23):
 * each null when its period is off or a legal hold is on the meeting (its own or its client's);
 * the recording's also when there is none to delete (a text meeting, or already gone). The sweep
 * runs every --sweep-interval, so a meeting goes at the first sweep after this time.
 */
function renderRetention(row: MeetingRow, extras: MeetingExtras): { delete_at: string | null; recording_delete_at: string | null } {
  if (row.legalHold || extras.client?.legalHold) return { delete_at: null, recording_delete_at: null };
  const { deleteAt, recordingDeleteAt } = retentionTimes(extras.retention, row);
  const hasRecording = row.source !== "text" && row.recordingDeletedAt === null;
  return {
    delete_at: deleteAt === null ? null : toRfc3339(deleteAt),
    recording_delete_at: recordingDeleteAt === null || !hasRecording ? null : toRfc3339(recordingDeleteAt),
  };
}

/** The API's meeting object (SPEC 2), as every meeting route and event shows it. */
export type RenderedMeeting = ReturnType<typeof renderMeeting>;

/** Full meeting objects for a page of meetings, from the extras loadExtras read for all of them at once. */
export function renderMeetings(rows: readonly MeetingRow[], extras: ReadonlyMap<string, MeetingExtras>, publicApiUrl: string): RenderedMeeting[] {
  return rows.map((row) => renderMeeting(row, extras.get(row.id)!, publicApiUrl));
}

/** The meetings' extras loaded over a `Conn` (a constant number of queries), then rendered. */
export async function renderedMeetings(c: Conn, rows: readonly MeetingRow[], publicApiUrl: string): Promise<RenderedMeeting[]> {
  return renderMeetings(rows, await meetingExtras(c, rows), publicApiUrl);
}
