// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { sql } from "drizzle-orm";
import type { LabelledSegment, LabelledTurn } from "../transcripts/types.ts";
import { bigint, boolean, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";
import type { MeetingRedaction, RedactionApplied } from "./redaction.ts";
import { MEETING_STATUSES } from "./table.ts";

export const meetings = pgTable(
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
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    recordedAt: bigint("recorded_at", { mode: "number" }).notNull().default(0),
    transcribeOnly: boolean("transcribe_only").notNull().default(false),
    durationSeconds: bigint("duration_seconds", { mode: "number" }),
    /** What the client asked for: an ISO 639-1 code or auto. */
    requestedLanguage: text("requested_language").notNull().default("auto"),
    /** The language found or given, once known. */
    language: text("language"),
    source: text("source", { enum: ["upload", "live_recording", "text", "url", "api"] }),
    recordingType: text("recording_type", { enum: ["meeting", "solo"] }),
    clientId: bigint("client_id", { mode: "number" }),
    /** JSON object, the client's own, echoed in jobs and events. */
    metadata: text("metadata").$type<Record<string, unknown>>(),
    fileName: text("file_name"),
    audioUrl: text("audio_url"),
    /** JSON array of tpl_ ids and the persona, kept for the document jobs spawned after the report. */
    documentTemplates: text("document_templates").$type<string[]>(),
    persona: text("persona"),
    minSpeakers: bigint("min_speakers", { mode: "number" }),
    maxSpeakers: bigint("max_speakers", { mode: "number" }),
    /** A legal hold on this meeting (issue 23): no deletion, by its owner or by retention, until lifted. */
    legalHold: boolean("legal_hold").notNull().default(false),
    /** When the retention sweep deleted the recording and decoded audio (transcript and report kept); null while it has them. */
    recordingDeletedAt: bigint("recording_deleted_at", { mode: "number" }),
    /** JSON array: the meeting's own terms for whisper's prompt (issue 23), before the account's glossary. */
    vocabulary: text("vocabulary").$type<string[]>(),
    /**
     * JSON: the redaction asked for (redact_pii, or the account's default when the meeting did not
     * say), as the worker applies it: entity kinds, whether the recording is silenced, the account's
     * case-number pattern as it was then. Null: no redaction.
     */
    redaction: text("redaction").$type<MeetingRedaction>(),
    /** JSON: what the redact step did (entity kinds with counts, audio silenced); null until it ran. */
    redactionApplied: text("redaction_applied").$type<RedactionApplied>(),
  },
  (t) => [index("meetings_user_created").on(t.userId, t.createdAt), index("meetings_user_recorded").on(t.userId, t.recordedAt)],
);

export const meetingTags = pgTable(
  "meeting_tags",
  {
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    tag: text("tag").notNull(),
  },
  (t) => [primaryKey({ columns: [t.meetingId, t.tag] }), index("meeting_tags_tag").on(t.tag)],
);

export const participants = pgTable(
  "participants",
  {
    /** Exposed as par_<id>. */
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    email: text("email"),
    /** JSON array of SPEAKER_NN labels; a label belongs to at most one participant of a meeting. */
    speakerLabels: text("speaker_labels").$type<string[]>().notNull().default(sql`'[]'`),
  },
  (t) => [index("participants_meeting").on(t.meetingId)],
);

export const transcripts = pgTable("transcripts", {
  meetingId: text("meeting_id")
    .primaryKey()
    .references(() => meetings.id, { onDelete: "cascade" }),
  language: text("language"),
  durationSeconds: bigint("duration_seconds", { mode: "number" }),
  model: text("model"),
  /** Every speaker label heard, in order of first appearance. */
  speakers: text("speakers").$type<string[]>().notNull(),
  segments: text("segments").$type<LabelledSegment[]>().notNull(),
  /** The diarization turns: who speaks when. */
  speakerTurns: text("speaker_turns").$type<LabelledTurn[]>().notNull().default(sql`'[]'`),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});

/**
 * The AI report of a meeting (the API calls it the meeting's summary; the code says report).
 * The meeting's own row: deleted with it.
 */
export const reports = pgTable("reports", {
  meetingId: text("meeting_id")
    .primaryKey()
    .references(() => meetings.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  language: text("language"),
  markdown: text("markdown").notNull(),
  /** {title, summary, key_takeaways, action_items, decisions, minutes}, as the report engine made it. */
  structured: text("structured").$type<Record<string, unknown>>(),
  model: text("model"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/**
 * Corrections of a transcript's words, typed by a person (the web app's inline editor, or the
 * API's extension). The transcripts row holds the current text, so everything that reads the
 * transcript (exports, documents, search, a regenerated report) reads the corrected words; this
 * table keeps every version with its author, oldest first. The meeting's own rows: deleted with it.
 */
export const transcriptCorrections = pgTable(
  "transcript_corrections",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    segmentIndex: bigint("segment_index", { mode: "number" }).notNull(),
    previousText: text("previous_text").notNull(),
    text: text("text").notNull(),
    authorUserId: text("author_user_id").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("transcript_corrections_meeting").on(t.meetingId, t.segmentIndex, t.id)],
);

/**
 * The parts of a draft's recording that arrived (web app recorder and resumable uploader): one
 * row per part, written in the transaction that renames the part's file into place, so what a
 * draft holds is read here and never by listing its folder. `sha256` lets finishing check each
 * file is the one received. Removed when the draft is finished (the parts are joined) or deleted.
 */
export const draftParts = pgTable(
  "draft_parts",
  {
    meetingId: text("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    partIndex: bigint("part_index", { mode: "number" }).notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
    receivedAt: bigint("received_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.meetingId, t.partIndex] })],
);

export const redactionDefaults = pgTable("redaction_defaults", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  enabled: boolean("enabled").notNull().default(false),
  entities: text("entities").$type<string[]>().notNull(),
  audio: boolean("audio").notNull().default(false),
  caseNumberPattern: text("case_number_pattern"),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});
