import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { resolveRedaction } from "./redaction.ts";
import { redactionDefaultsIn } from "./redaction-store.ts";
import { findOrCreateClient, getClient, requireClient, type ClientRow } from "../clients/service.ts";
import { clients } from "../clients/table.ts";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import type { renderDocument } from "../documents/resource.ts";
import { documentsOfMeetings } from "../documents/store.ts";
import type { JobRow } from "../jobs/query.ts";
import { jobs } from "../jobs/table.ts";
import { isUuid } from "../lib/ids.ts";
import { NO_POLICY, type RetentionPolicy } from "../retention/policy.ts";
import { retentionPolicies } from "../retention/table.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import type { CreateMeetingFields } from "./schema.ts";
import { reindexMeeting } from "./search-index-store.ts";
import { applyVocabulary, asStored } from "./vocabulary-store.ts";
import { meetings, meetingTags, participants, reports, transcripts } from "./table.ts";

/**
 * The meeting's own rows (meetings/table.ts): the meeting, its tags and participants, what the
 * API shows beside it. The reads have an async body over a `Queryable` (used inside the other
 * meeting stores and the other domains' bridges) and, where the rest of meetings/ calls them, a
 * face over a `Conn` (db/conn.ts) that reads everything a check needs in one batch
 * (ownedMeetingTranscript, ownedExportRows…): the checks and the shaping stay in the modules
 * beside (transcript.ts, report.ts, export-input.ts, render.ts). The writes are async, inside the
 * caller's transaction.
 */

/** A meeting's row, as stored: the one declaration of the type. */
export type MeetingRow = typeof meetings.$inferSelect;
export type ParticipantRow = typeof participants.$inferSelect;
export type ReportRow = typeof reports.$inferSelect;
export type TranscriptRow = typeof transcripts.$inferSelect;

/**
 * The one ownership check: the meeting when it exists and belongs to the user, else undefined
 * (another account's meeting is simply absent; an id that is no UUID names none).
 */
export async function ownedMeetingRow(q: Queryable, userId: string, meetingId: string): Promise<MeetingRow | undefined> {
  if (!isUuid(meetingId)) return undefined;
  return (
    await q
      .select()
      .from(meetings)
      .where(and(eq(meetings.id, meetingId.toLowerCase()), eq(meetings.userId, userId)))
      .limit(1)
  )[0];
}

export function findOwnedMeeting(c: Conn, userId: string, meetingId: string): Promise<MeetingRow | undefined> {
  return run(c, (q) => ownedMeetingRow(q, userId, meetingId));
}

/** True when the meeting exists and belongs to the user (feedback/ checks the meeting it is about). */
export async function ownsMeeting(q: Queryable, userId: string, meetingId: string): Promise<boolean> {
  return (await ownedMeetingRow(q, userId, meetingId)) !== undefined;
}

/**
 * Checks that client_id names one of the account's clients (404 when not): the multipart reader
 * validates a form's fields with it before the file (uploads/multipart.ts's beforeFile awaits it).
 */
export async function assertOwnClient(c: Conn, userId: string, clientId: string): Promise<void> {
  await run(c, (q) => requireClient(q, userId, clientId));
}

export async function participantsOf(q: Queryable, meetingId: string): Promise<ParticipantRow[]> {
  return q.select().from(participants).where(eq(participants.meetingId, meetingId)).orderBy(participants.id);
}

/** Every speaker label the transcript heard, or null while there is no transcript. */
export async function transcriptSpeakers(q: Queryable, meetingId: string): Promise<Set<string> | null> {
  const row = (await q.select({ speakers: transcripts.speakers }).from(transcripts).where(eq(transcripts.meetingId, meetingId)).limit(1))[0];
  return row ? new Set(row.speakers) : null;
}

/** A meeting's people: its participants, who holds which speaker label, and the labels no one holds. */
export interface MeetingParticipants {
  rows: ParticipantRow[];
  /** The transcript's speakers no participant holds, sorted (none while there is no transcript). */
  unattributed: string[];
  /** Speaker label → the name of the participant holding it. */
  names: Map<string, string>;
}

/** The one participant loader. */
export async function loadParticipants(q: Queryable, meetingId: string): Promise<MeetingParticipants> {
  const rows = await participantsOf(q, meetingId);
  const names = new Map<string, string>();
  for (const p of rows) for (const label of p.speakerLabels) names.set(label, p.name);
  const unattributed = [...((await transcriptSpeakers(q, meetingId)) ?? [])].filter((label) => !names.has(label)).sort();
  return { rows, unattributed, names };
}

export function meetingParticipants(c: Conn, meetingId: string): Promise<MeetingParticipants> {
  return run(c, (q) => loadParticipants(q, meetingId));
}

/** Where a meeting's row comes from, as insertMeeting records it. */
export interface MeetingOrigin {
  source: "upload" | "url" | "live_recording" | "text";
  fileName: string | null;
  audioUrl: string | null;
  fallbackTitle: string;
}

/**
 * The meeting's row, tags and participants, inside the caller's transaction. A draft (web app
 * only) has no recording yet; anything else is queued.
 */
export function insertMeeting(
  c: Conn,
  meetingId: string,
  account: { userId: string },
  fields: CreateMeetingFields,
  origin: MeetingOrigin,
  status: "draft" | "queued",
  now: number,
): Promise<void> {
  return run(c, async (tx) => {
    const recordedAt = fields.recorded_at ? Date.parse(fields.recorded_at) : now;
    let clientId: number | null = null;
    if (fields.client_id !== undefined) {
      clientId = (await requireClient(tx, account.userId, fields.client_id)).id;
    } else if (fields.client) {
      clientId = (await findOrCreateClient(tx, account.userId, fields.client, now)).id;
    }
    await tx.insert(meetings)
      .values({
        id: meetingId,
        userId: account.userId,
        title: fields.title ?? origin.fallbackTitle,
        titleSource: fields.title ? "user" : "file",
        status,
        createdAt: now,
        updatedAt: now,
        recordedAt,
        transcribeOnly: fields.transcribe_only,
        requestedLanguage: fields.language,
        language: fields.language === "auto" ? null : fields.language,
        source: origin.source,
        recordingType: fields.recording_type,
        clientId,
        metadata: fields.metadata ?? null,
        fileName: origin.fileName,
        audioUrl: origin.audioUrl,
        documentTemplates: fields.document_templates ?? null,
        persona: fields.persona ?? null,
        minSpeakers: fields.min_speakers ?? null,
        maxSpeakers: fields.max_speakers ?? null,
        vocabulary: fields.vocabulary?.length ? fields.vocabulary : null,
        redaction: resolveRedaction(fields.redact_pii, await redactionDefaultsIn(tx, account.userId)),
      });
    for (const tag of new Set(fields.tags)) await tx.insert(meetingTags).values({ meetingId, tag });
    for (const p of fields.participants) {
      await tx.insert(participants).values({ meetingId, name: p.name, email: p.email ?? null, speakerLabels: [...new Set(p.speaker_labels)] });
    }
    await reindexMeeting(tx, meetingId);
  });
}

/**
 * A transcript given as text (no audio): stored as it is (unless null: a meeting to redact, whose
 * redact step stores it), its named speakers made participants, the meeting reindexed; inside the
 * caller's transaction, after insertMeeting.
 */
export function insertGivenTranscript(
  c: Conn,
  meetingId: string,
  transcript: StoredTranscript | null,
  speakers: readonly { label: string; name: string }[],
  now: number,
): Promise<StoredTranscript | null> {
  return run(c, async (tx) => {
    if (transcript) await insertTranscriptRow(tx, meetingId, transcript, now);
    for (const speaker of speakers) {
      await tx.insert(participants).values({ meetingId, name: speaker.name, email: null, speakerLabels: [speaker.label] });
    }
    // Nothing stored yet for a meeting to redact: the glossary applies when the redact step stores it.
    if (!transcript) {
      await reindexMeeting(tx, meetingId);
      return null;
    }
    const changed = await applyVocabulary(tx, meetingId, now);
    await reindexMeeting(tx, meetingId);
    return asStored(transcript, changed);
  });
}

async function insertTranscriptRow(tx: Queryable, meetingId: string, transcript: StoredTranscript, now: number): Promise<void> {
  const duration = transcript.durationSeconds;
  await tx.insert(transcripts).values({
    meetingId,
    language: transcript.language,
    durationSeconds: duration > 0 ? Math.round(duration) : null,
    model: transcript.model,
    speakers: transcript.speakers,
    segments: transcript.segments,
    speakerTurns: transcript.turns,
    createdAt: now,
  });
}

/** What a meeting shows beside its own row, loaded for a whole page of meetings at once. */
export interface MeetingExtras {
  report: ReportRow | undefined;
  hasTranscript: boolean;
  client: ClientRow | undefined;
  job: JobRow | undefined;
  tags: string[];
  participants: ParticipantRow[];
  documents: ReturnType<typeof renderDocument>[];
  /** The owner's retention policy (retention/store.ts), for the meeting's deletion dates. */
  retention: RetentionPolicy;
}

/**
 * The related rows of these meetings in seven queries whatever their number (a list page of 100
 * meetings costs the same statements as one meeting): reports, transcript presence, clients,
 * the latest processing job of each, tags, participants, documents.
 */
export async function loadExtras(q: Queryable, rows: readonly MeetingRow[]): Promise<Map<string, MeetingExtras>> {
  const ids = rows.map((r) => r.id);
  const extras = new Map<string, MeetingExtras>(
    ids.map((id) => [id, { report: undefined, hasTranscript: false, client: undefined, job: undefined, tags: [], participants: [], documents: [], retention: NO_POLICY }]),
  );
  if (!ids.length) return extras;
  for (const report of await q.select().from(reports).where(inArray(reports.meetingId, ids))) extras.get(report.meetingId)!.report = report;
  // Whether each has a transcript, and its owner's retention policy, in one statement.
  const presence = await q
    .select({
      id: meetings.id,
      hasTranscript: sql`EXISTS (SELECT 1 FROM ${transcripts} WHERE ${transcripts.meetingId} = ${meetings.id})`.mapWith(Boolean),
      deleteAfterDays: retentionPolicies.deleteAfterDays,
      recordingDeleteAfterDays: retentionPolicies.recordingDeleteAfterDays,
      policyUpdatedAt: retentionPolicies.updatedAt,
    })
    .from(meetings)
    .leftJoin(retentionPolicies, eq(retentionPolicies.userId, meetings.userId))
    .where(inArray(meetings.id, ids));
  for (const { id, hasTranscript, deleteAfterDays, recordingDeleteAfterDays, policyUpdatedAt } of presence) {
    const entry = extras.get(id)!;
    entry.hasTranscript = hasTranscript;
    if (policyUpdatedAt !== null) entry.retention = { deleteAfterDays, recordingDeleteAfterDays, updatedAt: policyUpdatedAt };
  }
  const clientIds = [...new Set(rows.map((r) => r.clientId).filter((id): id is number => id !== null))];
  const clientRows = clientIds.length ? await q.select().from(clients).where(inArray(clients.id, clientIds)) : [];
  const clientsById = new Map(clientRows.map((c) => [c.id, c]));
  for (const row of rows) {
    // A client of another account is never shown (the row's client_id always is the owner's own).
    const client = row.clientId === null ? undefined : clientsById.get(row.clientId);
    extras.get(row.id)!.client = client && client.userId === row.userId ? client : undefined;
  }
  // The newest API meeting_processing job per meeting: jobs come newest first, the first seen wins.
  // A web app job (a report written again in the web app) is never the one an API meeting shows.
  const jobRows = await q
    .select()
    .from(jobs)
    .where(and(inArray(jobs.meetingId, ids), eq(jobs.kind, "meeting_processing"), eq(jobs.channel, "api")))
    .orderBy(desc(jobs.createdAt));
  for (const job of jobRows) {
    const entry = extras.get(job.meetingId!)!;
    entry.job ??= job;
  }
  for (const { meetingId, tag } of await q.select().from(meetingTags).where(inArray(meetingTags.meetingId, ids)).orderBy(meetingTags.tag)) {
    extras.get(meetingId)!.tags.push(tag);
  }
  for (const participant of await q.select().from(participants).where(inArray(participants.meetingId, ids)).orderBy(participants.id)) {
    extras.get(participant.meetingId)!.participants.push(participant);
  }
  for (const [meetingId, list] of await documentsOfMeetings(q, ids)) extras.get(meetingId)!.documents = list;
  return extras;
}

/** loadExtras over a `Conn` (meetings/render.ts renders the meetings from them). */
export function meetingExtras(c: Conn, rows: readonly MeetingRow[]): Promise<Map<string, MeetingExtras>> {
  return run(c, (q) => loadExtras(q, rows));
}

/** A meeting's tags, sorted. */
export async function tagsOf(q: Queryable, meetingId: string): Promise<string[]> {
  return (await q.select({ tag: meetingTags.tag }).from(meetingTags).where(eq(meetingTags.meetingId, meetingId)).orderBy(meetingTags.tag)).map((t) => t.tag);
}

/** The report's Markdown of a meeting, when it has one. */
export async function reportMarkdownOf(q: Queryable, meetingId: string): Promise<{ markdown: string; language: string | null } | undefined> {
  return (await q.select({ markdown: reports.markdown, language: reports.language }).from(reports).where(eq(reports.meetingId, meetingId)).limit(1))[0];
}

export async function reportOf(q: Queryable, meetingId: string): Promise<ReportRow | undefined> {
  return (await q.select().from(reports).where(eq(reports.meetingId, meetingId)).limit(1))[0];
}

export async function transcriptRowOf(q: Queryable, meetingId: string): Promise<TranscriptRow | undefined> {
  return (await q.select().from(transcripts).where(eq(transcripts.meetingId, meetingId)).limit(1))[0];
}

/** A meeting's stored transcript (undefined while there is none) and who holds which speaker label. */
export interface TranscriptRows {
  row: TranscriptRow | undefined;
  /** Speaker label → the name of the participant holding it. */
  names: Map<string, string>;
}

/** The transcript and its speakers' names, read together (meetings/transcript.ts shapes them). */
export async function transcriptRowsIn(q: Queryable, meetingId: string): Promise<TranscriptRows> {
  const row = await transcriptRowOf(q, meetingId);
  return { row, names: row ? (await loadParticipants(q, meetingId)).names : new Map() };
}

export function meetingTranscriptRows(c: Conn, meetingId: string): Promise<TranscriptRows> {
  return run(c, (q) => transcriptRowsIn(q, meetingId));
}

/** One of the user's meetings with its transcript, read together; undefined when it is not the user's. */
export function ownedMeetingTranscript(c: Conn, userId: string, meetingId: string): Promise<({ meeting: MeetingRow } & TranscriptRows) | undefined> {
  return run(c, async (q) => {
    const meeting = await ownedMeetingRow(q, userId, meetingId);
    return meeting && { meeting, ...(await transcriptRowsIn(q, meeting.id)) };
  });
}

/** One of the user's meetings with its report row, read together; undefined when it is not the user's. */
export function ownedMeetingReport(c: Conn, userId: string, meetingId: string): Promise<{ meeting: MeetingRow; report: ReportRow | undefined } | undefined> {
  return run(c, async (q) => {
    const meeting = await ownedMeetingRow(q, userId, meetingId);
    return meeting && { meeting, report: meeting.transcribeOnly ? undefined : await reportOf(q, meeting.id) };
  });
}

/** Everything an export of one of the user's meetings is built from, read together (meetings/export-input.ts). */
export interface ExportRows {
  meeting: MeetingRow;
  transcript: TranscriptRows;
  /** Undefined with transcribe_only or before the report is written. */
  report: { markdown: string; language: string | null } | undefined;
  client: ClientRow | undefined;
  tags: string[];
  participants: ParticipantRow[];
}

export function ownedExportRows(c: Conn, userId: string, meetingId: string): Promise<ExportRows | undefined> {
  return run(c, async (q) => {
    const meeting = await ownedMeetingRow(q, userId, meetingId);
    if (!meeting) return undefined;
    return {
      meeting,
      transcript: await transcriptRowsIn(q, meeting.id),
      report: meeting.transcribeOnly ? undefined : await reportMarkdownOf(q, meeting.id),
      client: meeting.clientId === null ? undefined : await getClient(q, userId, meeting.clientId),
      tags: await tagsOf(q, meeting.id),
      participants: await participantsOf(q, meeting.id),
    };
  });
}

/** Any meeting by id, whoever owns it (the job kinds and document material, never a request). */
export async function meetingById(q: Queryable, meetingId: string): Promise<MeetingRow | undefined> {
  if (!isUuid(meetingId)) return undefined;
  return (await q.select().from(meetings).where(eq(meetings.id, meetingId.toLowerCase())).limit(1))[0];
}
