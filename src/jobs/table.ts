import { sqliteTable, text, integer, real, index } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

export const JOB_KINDS = ["meeting_processing", "document_generation"] as const;
export const JOB_STATUSES = ["queued", "processing", "completed", "failed", "canceled"] as const;
export const JOB_STAGES = ["queued", "downloading", "transcribing", "summarizing", "generating", "done"] as const;

export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    kind: text("kind", { enum: JOB_KINDS }).notNull(),
    status: text("status", { enum: JOB_STATUSES }).notNull(),
    stage: text("stage", { enum: JOB_STAGES }),
    progress: real("progress"),
    /** Jobs of meetings processed in the webapp are kept but never listed by the API. */
    source: text("source", { enum: ["api", "webapp"] }).notNull(),
    meetingId: text("meeting_id"),
    documentId: text("document_id"),
    parentJobId: text("parent_job_id"),
    transcribeOnly: integer("transcribe_only", { mode: "boolean" }),
    /** A meeting's report written again from its stored (corrected) transcript: summarize only, no documents spawned. */
    reportOnly: integer("report_only", { mode: "boolean" }),
    documentTemplates: text("document_templates", { mode: "json" }).$type<string[]>(),
    documentJobIds: text("document_job_ids", { mode: "json" }).$type<string[]>(),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    usage: text("usage", { mode: "json" }).$type<Record<string, unknown>>(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    /** The next internal step to run (download, decode, transcribe, ...); a restart resumes here. */
    nextStep: text("next_step"),
    /** Tries of the current step; a step is retried a bounded number of times. */
    stepAttempts: integer("step_attempts").notNull().default(0),
    /** The scheduler instance that claimed the job, and until when the claim holds unless renewed. */
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at"),
    createdAt: integer("created_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    index("jobs_user_created").on(t.userId, t.createdAt, t.id),
    index("jobs_meeting").on(t.meetingId),
    index("jobs_status_created").on(t.status, t.createdAt),
  ],
);
