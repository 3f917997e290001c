import { z } from "zod";
import { declareJobKind, payloadOf } from "../jobs/kind.ts";
import type { JobRow } from "../jobs/query.ts";

/**
 * document_generation as the queue sees it (jobs/kind.ts): its name, its one stage, and what it
 * keeps on each job (jobs.payload): the document it wrote, once written.
 */
export const documentGenerationJob = declareJobKind({
  kind: "document_generation",
  stages: ["generating"],
  payload: z.object({
    /** The document written (shown as the job's document_id). */
    documentId: z.string().optional(),
  }),
});

export type DocumentJobPayload = z.output<typeof documentGenerationJob.payload>;

/** A document_generation job's payload, validated. */
export function documentJobPayload(job: Pick<JobRow, "kind" | "payload">): DocumentJobPayload {
  return payloadOf(documentGenerationJob, job);
}
