import { z } from "zod";
import { pageSchema, paginationQuery } from "../http/pagination.ts";
import { registeredJobKinds } from "./kind.ts";
import { JOB_STATUSES } from "./table.ts";

/** The job kinds' names and the stages of SPEC 3, from the kinds registered (jobs/kind.ts). */
function kindsAndStages(): { kinds: [string, ...string[]]; stages: [string, ...string[]] } {
  const declared = registeredJobKinds().filter((k) => !k.internal);
  if (!declared.length) throw new Error("no job kind is registered yet: build the job schemas after the scheduler is (service.ts)");
  const kinds = declared.map((k) => k.kind) as [string, ...string[]];
  const stages = ["queued", ...new Set(declared.flatMap((k) => k.stages)), "done"] as [string, ...string[]];
  return { kinds, stages };
}

let built: { count: number; schemas: ReturnType<typeof buildSchemas> } | undefined;

/**
 * The job routes' schemas (the query of GET /v1/jobs, the job object and its page), built from
 * the job kinds registered, so the API validates and documents every kind without jobs/ naming one.
 * Call it when routes are defined (after the scheduler registered its kinds).
 */
export function jobSchemas(): ReturnType<typeof buildSchemas> {
  const count = registeredJobKinds().length;
  if (!built || built.count !== count) built = { count, schemas: buildSchemas() };
  return built.schemas;
}

function buildSchemas() {
  const { kinds, stages } = kindsAndStages();
  const listJobsQuery = z.object({
    ...paginationQuery(20),
    kind: z.enum(kinds).optional(),
    status: z.enum(JOB_STATUSES).optional(),
  });
  const jobSchema = z.object({
    id: z.string(),
    object: z.literal("job"),
    kind: z.enum(kinds),
    status: z.enum(JOB_STATUSES),
    stage: z.enum(stages).nullable(),
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
  return { listJobsQuery, jobSchema, jobPageSchema: pageSchema(jobSchema) };
}

export const jobParams = z.object({ job_id: z.string().max(100) });

/**
 * The job object's fields SPEC 3 gives some kinds only (null on the others): a kind whose payload
 * carries one under this name shows it. The API's shape, not any kind's: a new kind that needs
 * none of them leaves this file alone.
 */
export const specKindFields = z.object({
  documentId: z.string().optional(),
  transcribeOnly: z.boolean().optional(),
  documentTemplates: z.array(z.string()).nullable().optional(),
  documentJobIds: z.array(z.string()).optional(),
});
