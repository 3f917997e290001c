import { and, desc, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { ApiError } from "../errors/api-error.ts";
import { paginate } from "../http/pagination.ts";
import { toRfc3339 } from "../lib/time.ts";
import { jobs, type JOB_KINDS, type JOB_STATUSES } from "./table.ts";

export type JobRow = typeof jobs.$inferSelect;

export interface JobListFilter {
  limit: number;
  cursor?: string;
  kind?: (typeof JOB_KINDS)[number];
  status?: (typeof JOB_STATUSES)[number];
}

/** The account's API jobs, newest first, one page. */
export function listJobs(db: Queryable, userId: string, filter: JobListFilter) {
  return paginate(
    filter,
    (after, take) =>
      db
        .select()
        .from(jobs)
        .where(
          and(
            eq(jobs.userId, userId),
            eq(jobs.source, "api"),
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
  );
}

/** One job of the account; another account's job, or a webapp job, is not found. */
export function getJob(db: Queryable, userId: string, jobId: string) {
  const row = db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.userId, userId), eq(jobs.source, "api")))
    .get();
  if (!row) throw ApiError.notFound(`Job ${jobId}`);
  return renderJob(row);
}

function time(ms: number | null): string | null {
  return ms === null ? null : toRfc3339(ms);
}

export function renderJob(row: JobRow) {
  return {
    id: row.id,
    object: "job" as const,
    kind: row.kind,
    status: row.status,
    stage: row.stage,
    progress: row.progress,
    meeting_id: row.meetingId,
    document_id: row.documentId,
    parent_job_id: row.parentJobId,
    transcribe_only: row.transcribeOnly,
    document_templates: row.documentTemplates,
    document_job_ids: row.documentJobIds,
    error: row.errorCode === null ? null : { code: row.errorCode, message: row.errorMessage ?? "" },
    usage: row.usage,
    metadata: row.metadata,
    created_at: toRfc3339(row.createdAt),
    started_at: time(row.startedAt),
    finished_at: time(row.finishedAt),
  };
}
