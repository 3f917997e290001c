import type { LabelledSegment, LabelledTurn } from "../transcripts/types.ts";
import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";
import type { MeetingRedaction, RedactionApplied } from "./redaction.ts";

export const MEETING_STATUSES = ["draft", "queued", "processing", "completed", "failed"] as const;

export const meetings = sqliteTable(
  "meetings",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    title: text("title").notNull(),
    /** user: given or PATCHed (never replaced); ai: written by the report; file: the upload's name. */
    titleSource: text("title_source", { enum: ["user", "ai", "file"] }).notNull().default("user"),
    status: text("status", { enum: MEETING_STATUSES }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    recordedAt: integer("recorded_at").notNull().default(0),
    transcribeOnly: integer("transcribe_only", { mode: "boolean" }).notNull().default(false),
    durationSeconds: integer("duration_seconds"),
    /** What the client asked for: an ISO 639-1 code or auto. */
    requestedLanguage: text("requested_language").notNull().default("auto"),
    /** The language found or given, once known. */
    language: text("language"),
    source: text("source", { enum: ["upload", "live_recording", "text", "url", "api"] }),
    recordingType: text("recording_type", { enum: ["meeting", "solo"] }),
    clientId: integer("client_id"),
    /** JSON object, the client's own, echoed in jobs and events. */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    fileName: text("file_name"),
    audioUrl: text("audio_url"),
    /** JSON array of tpl_ ids and the persona, kept for the document jobs spawned after the report. */
    documentTemplates: text("document_templates", { mode: "json" }).$type<string[]>(),
    persona: text("persona"),
    minSpeakers: integer("min_speakers"),
    maxSpeakers: integer("max_speakers"),
    /** A legal hold on this meeting (issue 23): no deletion, by its owner or by retention, until lifted. */
    legalHold: integer("legal_hold", { mode: "boolean" }).notNull().default(false),
    /** When the retention sweep deleted the recording and decoded audio (transcript and report kept); null while it has them. */
    recordingDeletedAt: integer("recording_deleted_at"),
    /** JSON array: the meeting's own terms for whisper's prompt (issue 23), before the account's glossary. */
    vocabulary: text("vocabulary", { mode: "json" }).$type<string[]>(),
    /**
     * JSON: the redaction asked for (redact_pii, or the account's default when the meeting did not
     * say), as the worker applies it: entity kinds, whether the recording is silenced, the account's
     * case-number pattern as it was then. Null: no redaction.
     */
    redaction: text("redaction", { mode: "json" }).$type<MeetingRedaction>(),
    /** JSON: what the redact step did (entity kinds with counts, audio silenced); null until it ran. */
    redactionApplied: text("redaction_applied", { mode: "json" }).$type<RedactionApplied>(),
  },
  (t) => [index("meetings_user_created").on(t.userId, t.createdAt), index("meetings_user_recorded").on(t.userId, t.recordedAt)],
);

export const meetingTags = sqliteTable(
  "meeting_tags",
  {
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    tag: text("tag").notNull(),
  },
  (t) => [primaryKey({ columns: [t.meetingId, t.tag] }), index("meeting_tags_tag").on(t.tag)],
);

export const participants = sqliteTable(
  "participants",
  {
    /** Exposed as par_<id>. */
    id: integer("id").primaryKey({ autoIncrement: true }),
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    email: text("email"),
    /** JSON array of SPEAKER_NN labels; a label belongs to at most one participant of a meeting. */
    speakerLabels: text("speaker_labels", { mode: "json" }).$type<string[]>().notNull().default([]),
  },
  (t) => [index("participants_meeting").on(t.meetingId)],
);

export const transcripts = sqliteTable("transcripts", {
  meetingId: text("meeting_id")
    .primaryKey()
    .references(() => meetings.id, { onDelete: "cascade" }),
  language: text("language"),
  durationSeconds: integer("duration_seconds"),
  model: text("model"),
  /** Every speaker label heard, in order of first appearance. */
  speakers: text("speakers", { mode: "json" }).$type<string[]>().notNull(),
  segments: text("segments", { mode: "json" }).$type<LabelledSegment[]>().notNull(),
  /** The diarization turns: who speaks when. */
  speakerTurns: text("speaker_turns", { mode: "json" }).$type<LabelledTurn[]>().notNull().default([]),
  createdAt: integer("created_at").notNull(),
});

/**
 * The AI report of a meeting (the API calls it the meeting's summary; the code says report).
 * The meeting's own row: deleted with it.
 */
export const reports = sqliteTable("reports", {
  meetingId: text("meeting_id")
    .primaryKey()
    .references(() => meetings.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  language: text("language"),
  markdown: text("markdown").notNull(),
  /** {title, summary, key_takeaways, action_items, decisions, minutes}, as the report engine made it. */
  structured: text("structured", { mode: "json" }).$type<Record<string, unknown>>(),
  model: text("model"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Corrections of a transcript's words, typed by a person (the web app's inline editor, or the
 * API's extension). The transcripts row holds the current text, so everything that reads the
 * transcript (exports, documents, search, a regenerated report) reads the corrected words; this
 * table keeps every version with its author, oldest first. The meeting's own rows: deleted with it.
 */
export const transcriptCorrections = sqliteTable(
  "transcript_corrections",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    segmentIndex: integer("segment_index").notNull(),
    previousText: text("previous_text").notNull(),
    text: text("text").notNull(),
    authorUserId: text("author_user_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("transcript_corrections_meeting").on(t.meetingId, t.segmentIndex, t.id)],
);

/**
 * The parts of a draft's recording that arrived (web app recorder and resumable uploader): one
 * row per part, written in the transaction that renames the part's file into place, so what a
 * draft holds is read here and never by listing its folder. `sha256` lets finishing check each
 * file is the one received. Removed when the draft is finished (the parts are joined) or deleted.
 */
export const draftParts = sqliteTable(
  "draft_parts",
  {
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    partIndex: integer("part_index").notNull(),
    bytes: integer("bytes").notNull(),
    sha256: text("sha256").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.meetingId, t.partIndex] })],
);

/**
 * An account's redaction default (Settings, GET/PUT /v1/redaction): used by every meeting created
 * without redact_pii; and its case/file number pattern, which redaction looks for when the
 * case_number kind is asked. One row per account, none until the account sets it.
 */
export const redactionDefaults = sqliteTable("redaction_defaults", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  /** Meetings that do not say are redacted. */
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
  /** JSON array of entity kinds. */
  entities: text("entities", { mode: "json" }).$type<string[]>().notNull(),
  audio: integer("audio", { mode: "boolean" }).notNull().default(false),
  caseNumberPattern: text("case_number_pattern"),
  updatedAt: integer("updated_at").notNull(),
});
