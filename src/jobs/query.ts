import { toRfc3339 } from "../lib/time.ts";
import { specKindFields } from "./schema.ts";
import type { jobs, JobStatus } from "./table.ts";

export type JobRow = typeof jobs.$inferSelect;

export interface JobListFilter {
  limit: number;
  cursor?: string;
  kind?: string;
  status?: JobStatus;
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
