import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, real, index } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";
import { CHANNELS, type Channel } from "../lib/channel.ts";

export const JOB_STATUSES = ["queued", "processing", "completed", "failed", "canceled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A JSON value as a column stores it. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
/**
 * What a job of one kind carries that the queue does not read (a meeting's options, the document
 * written...): the kind's own, declared and validated by it
 * (jobs/kind.ts `payload`), stored whole in `jobs.payload`.
 */
export type JobPayload = { [key: string]: Json | undefined };

export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /** A registered job kind's name (jobs/kind.ts): the queue knows none of them. */
    kind: text("kind").notNull(),
    status: text("status", { enum: JOB_STATUSES }).notNull(),
    /** "queued", "done", or a stage its kind declared. */
    stage: text("stage"),
    progress: real("progress"),
    /** Jobs of meetings processed in the webapp are kept but never listed by the API. */
    channel: text("channel", { enum: CHANNELS }).$type<Channel>().notNull(),
    meetingId: text("meeting_id"),
    /** The job that queued this one (a meeting's documents): it holds no processing slot. */
    parentJobId: text("parent_job_id"),
    /** The kind's own data (its `payload` declaration validates it). */
    payload: text("payload", { mode: "json" }).$type<JobPayload>().notNull().default(sql`'{}'`),
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
