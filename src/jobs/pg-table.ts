// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { sql } from "drizzle-orm";
import { bigint, doublePrecision, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";
import { CHANNELS, type Channel } from "../lib/channel.ts";
import { JOB_STATUSES, type JobPayload } from "./table.ts";

export const jobs = pgTable(
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
    progress: doublePrecision("progress"),
    /** Jobs of meetings processed in the webapp are kept but never listed by the API. */
    channel: text("channel", { enum: CHANNELS }).$type<Channel>().notNull(),
    meetingId: text("meeting_id"),
    /** The job that queued this one (a meeting's documents): it holds no processing slot. */
    parentJobId: text("parent_job_id"),
    /** The kind's own data (its `payload` declaration validates it). */
    payload: text("payload").$type<JobPayload>().notNull().default(sql`'{}'`),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    usage: text("usage").$type<Record<string, unknown>>(),
    metadata: text("metadata").$type<Record<string, unknown>>(),
    /** The next internal step to run (download, decode, transcribe, ...); a restart resumes here. */
    nextStep: text("next_step"),
    /** Tries of the current step; a step is retried a bounded number of times. */
    stepAttempts: bigint("step_attempts", { mode: "number" }).notNull().default(0),
    /** The scheduler instance that claimed the job, and until when the claim holds unless renewed. */
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: bigint("lease_expires_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    startedAt: bigint("started_at", { mode: "number" }),
    finishedAt: bigint("finished_at", { mode: "number" }),
  },
  (t) => [
    index("jobs_user_created").on(t.userId, t.createdAt, t.id),
    index("jobs_meeting").on(t.meetingId),
    index("jobs_status_created").on(t.status, t.createdAt),
  ],
);
