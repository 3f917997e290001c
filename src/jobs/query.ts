import { and, desc, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { ApiError } from "../errors/api-error.ts";
import { paginate } from "../http/pagination.ts";
import { toRfc3339 } from "../lib/time.ts";
import { specKindFields } from "./schema.ts";
import { jobs, type JobStatus } from "./table.ts";

export type JobRow = typeof jobs.$inferSelect;

export interface JobListFilter {
  limit: number;
  cursor?: string;
  kind?: string;
  status?: JobStatus;
}

/** The account's API jobs, newest first, one page. */
export function listJobs(c: Conn, userId: string, filter: JobListFilter) {
  return run(c, (db) =>
    paginate(
      filter,
      (after, take) =>
        db
          .select()
          .from(jobs)
          .where(
            and(
              eq(jobs.userId, userId),
              eq(jobs.channel, "api"),
              filter.kind ? eq(jobs.kind, filter.kind) : undefined,
              filter.status ? eq(jobs.status, filter.status) : undefined,
              newestFirstAfter(jobs.createdAt, jobs.id, after),
            ),
          )
          .orderBy(desc(jobs.createdAt), desc(jobs.id))
          .limit(take)
          .all(),
      (row) => [row.createdAt, row.id],
      (rows) => rows.map(renderJob),
    ),
  );
}

/** One job of the account; another account's job, or a webapp job, is not found. */
export function getJob(c: Conn, userId: string, jobId: string) {
  return run(c, (q) => getJobIn(q, userId, jobId));
}

/**
 * `getJob` inside a synchronous transaction body (the bridge for callers that answer the job they
 * just queued from inside their own transaction, documents/routes.ts).
 */
export function getJobIn(q: Queryable, userId: string, jobId: string) {
  const row = q
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.userId, userId), eq(jobs.channel, "api")))
    .get();
  if (!row) throw ApiError.notFound(`Job ${jobId}`);
  return renderJob(row);
}

function time(ms: number | null): string | null {
  return ms === null ? null : toRfc3339(ms);
}

/** The job object of SPEC 3 (its kind's fields from its payload, null where its kind has none). */
export function renderJob(row: JobRow) {
  const own = specKindFields.parse(row.payload);
  return {
    id: row.id,
    object: "job" as const,
    kind: row.kind,
    status: row.status,
    stage: row.stage,
    progress: row.progress,
    meeting_id: row.meetingId,
    document_id: own.documentId ?? null,
    parent_job_id: row.parentJobId,
    transcribe_only: own.transcribeOnly ?? null,
    document_templates: own.documentTemplates ?? null,
    document_job_ids: own.documentJobIds ?? null,
    error: row.errorCode === null ? null : { code: row.errorCode, message: row.errorMessage ?? "" },
    usage: row.usage,
    metadata: row.metadata,
    created_at: toRfc3339(row.createdAt),
    started_at: time(row.startedAt),
    finished_at: time(row.finishedAt),
  };
}
