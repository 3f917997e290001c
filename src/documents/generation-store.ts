import type { JobQueue } from "../jobs/pg-boss-store.ts";
import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { emitEvent } from "../events/store.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import { renderJob } from "../jobs/query.ts";
import { failQueuedJobIn } from "../jobs/store.ts";
import type { TemplateCatalogue } from "../templates/catalogue.ts";
import { documentGenerationJob } from "./generation-job.ts";
import { documentRequests, documents } from "./table.ts";

// What the document_generation kind (generation.ts) reads and writes as its job moves.

/** The request a document job writes from (documents/request.ts or spawnDocumentJobs below queued it). */
export function requestOfJob(c: Conn, jobId: string) {
  return run(c, async (q) => (await q.select().from(documentRequests).where(eq(documentRequests.jobId, jobId)).limit(1))[0]);
}

export async function insertDocument(c: Conn, values: typeof documents.$inferInsert): Promise<void> {
  await run(c, async (q) => {
    await q.insert(documents).values(values);
  });
}

export function findDocument(c: Conn, documentId: string) {
  return run(c, async (q) => (await q.select().from(documents).where(eq(documents.id, documentId)).limit(1))[0]);
}

/**
 * Queues the document jobs a meeting asked for at creation, once its report exists, inside the
 * transaction that completes the meeting's job: each with parent_job_id, holding no processing
 * slot (SPEC 8 rule 2); answers their ids (the parent's kind keeps them: document_job_ids). A template gone from the
 * catalogue since (the operator removed its file) gets a job failed at once with
 * template_unavailable and its document.failed event, so the client hears of every document asked for.
 */
export async function spawnDocumentJobs(
  tx: Queryable,
  catalogue: Pick<TemplateCatalogue, "get">,
  parent: { id: string; userId: string; meetingId: string; metadata: Record<string, unknown> | null },
  templateIds: string[],
  now: number,
  queue: JobQueue,
): Promise<string[]> {
  const ids: string[] = [];
  for (const templateId of templateIds) {
    const template = catalogue.get(templateId);
    const jobId = await enqueueJob(tx, {
      userId: parent.userId,
      kind: documentGenerationJob,
      firstStep: "generate",
      now,
      meetingId: parent.meetingId,
      parentJobId: parent.id,
      payload: {},
      metadata: parent.metadata,
      audioSeconds: 0,
    }, queue);
    ids.push(jobId);
    if (!template) {
      const row = await failQueuedJobIn(tx, jobId, { code: "template_unavailable", message: `The template ${templateId} is no longer in the catalogue.` }, now);
      await emitEvent(tx, { userId: parent.userId, type: "document.failed", now, meetingId: parent.meetingId, object: renderJob(row) });
      continue;
    }
    await tx.insert(documentRequests).values({
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
