import { z } from "zod";
import { pageSchema, paginationQuery } from "../http/pagination.ts";
import { JOB_KINDS, JOB_STAGES, JOB_STATUSES } from "./table.ts";

export const listJobsQuery = z.object({
  ...paginationQuery(20),
  kind: z.enum(JOB_KINDS).optional(),
  status: z.enum(JOB_STATUSES).optional(),
});

export const jobParams = z.object({ job_id: z.string().max(100) });

export const jobSchema = z.object({
  id: z.string(),
  object: z.literal("job"),
  kind: z.enum(JOB_KINDS),
  status: z.enum(JOB_STATUSES),
  stage: z.enum(JOB_STAGES).nullable(),
  progress: z.number().nullable(),
  meeting_id: z.string().nullable(),
  document_id: z.string().nullable(),
  parent_job_id: z.string().nullable(),
  transcribe_only: z.boolean().nullable(),
  document_templates: z.array(z.string()).nullable(),
  document_job_ids: z.array(z.string()).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  usage: z.record(z.string(), z.unknown()).nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

export const jobPageSchema = pageSchema(jobSchema);
