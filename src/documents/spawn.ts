import type { Queryable } from "../db/client.ts";
import { emitEvent } from "../events/store.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import { renderJob } from "../jobs/query.ts";
import { failQueuedJobIn } from "../jobs/store.ts";
import { documentGenerationJob } from "./generation-job.ts";
import type { TemplateCatalogue } from "../templates/catalogue.ts";
import { insertDocumentRequestIn } from "./generation-store.ts";

/** Documents a meeting may ask for at creation (SPEC 8). */
export const MAX_DOCUMENTS_AT_CREATION = 5;

/** The templates a meeting asked for: its document_templates, else its persona's (at most 5, in catalogue order). */
export function templatesRequested(catalogue: Pick<TemplateCatalogue, "templates">, documentTemplates: string[] | null, persona: string | null): string[] {
  if (documentTemplates?.length) return [...new Set(documentTemplates)].slice(0, MAX_DOCUMENTS_AT_CREATION);
  if (!persona) return [];
  return catalogue.templates.filter((t) => t.persona === persona).slice(0, MAX_DOCUMENTS_AT_CREATION).map((t) => t.id);
}

/**
 * Queues the document jobs a meeting asked for at creation, once its report exists, inside the
 * transaction that completes the meeting's job: each with parent_job_id, holding no processing
 * slot (SPEC 8 rule 2); answers their ids (the parent's kind keeps them: document_job_ids). A template gone from the
 * catalogue since (the operator removed its file) gets a job failed at once with
 * template_unavailable and its document.failed event, so the client hears of every document asked for.
 */
export function spawnDocumentJobs(
  tx: Queryable,
  catalogue: Pick<TemplateCatalogue, "get">,
  parent: { id: string; userId: string; meetingId: string; metadata: Record<string, unknown> | null },
  templateIds: string[],
  now: number,
): string[] {
  const ids: string[] = [];
  for (const templateId of templateIds) {
    const template = catalogue.get(templateId);
    const jobId = enqueueJob(tx, {
      userId: parent.userId,
      kind: documentGenerationJob,
      firstStep: "generate",
      now,
      meetingId: parent.meetingId,
      parentJobId: parent.id,
      payload: {},
      metadata: parent.metadata,
    });
    ids.push(jobId);
    if (!template) {
      const row = failQueuedJobIn(tx, jobId, { code: "template_unavailable", message: `The template ${templateId} is no longer in the catalogue.` }, now);
      emitEvent(tx, { userId: parent.userId, type: "document.failed", now, meetingId: parent.meetingId, object: renderJob(row) });
      continue;
    }
    insertDocumentRequestIn(tx, {
      jobId,
      userId: parent.userId,
      meetingId: parent.meetingId,
      templateId: template.id,
      task: template.prompt,
      title: template.name,
      instructions: null,
      includeTranscript: false,
      createdAt: now,
    });
  }
  return ids;
}
