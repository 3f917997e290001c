// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, boolean, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";

/**
 * Generated documents (SPEC 2, Document). A document belongs to a meeting, but documents/ does not
 * import meetings/ (the meeting side imports this folder), so the meeting's deletion removes its
 * documents explicitly (deleteMeetingDocuments), in its own transaction, rather than by a foreign key.
 */
export const documents = pgTable(
  "documents",
  {
    /** doc_<random>. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    meetingId: text("meeting_id").notNull(),
    /** The document_generation job that wrote it. */
    jobId: text("job_id").notNull(),
    title: text("title").notNull(),
    templateId: text("template_id"),
    language: text("language"),
    model: text("model"),
    markdown: text("markdown").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("documents_user_created").on(t.userId, t.createdAt, t.id), index("documents_meeting").on(t.meetingId)],
);

/**
 * What a document_generation job was asked to write, kept until the job ends and as long as the
 * meeting: the task (the template's prompt as it was when asked, or the client's prompt), the
 * client's instructions and title. Client content: deleted with the meeting.
 */
export const documentRequests = pgTable(
  "document_requests",
  {
    jobId: text("job_id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    meetingId: text("meeting_id").notNull(),
    templateId: text("template_id"),
    task: text("task").notNull(),
    title: text("title"),
    instructions: text("instructions"),
    includeTranscript: boolean("include_transcript").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("document_requests_meeting").on(t.meetingId)],
);
