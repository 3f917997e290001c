import { eq } from "drizzle-orm";
import { findUserById } from "../auth/users.ts";
import type { Queryable } from "../db/client.ts";
import type { UsageMeter } from "../usage/meter.ts";
import { emitEvent } from "../events/service.ts";
import type { JobKind } from "../jobs/kind.ts";
import { renderJob, type JobRow } from "../jobs/query.ts";
import { jobs } from "../jobs/table.ts";
import { randomId } from "../lib/ids.ts";
import { DOCUMENT_STEPS, type DocumentStepInput } from "../worker/protocol.ts";
import type { LoadMeetingMaterial } from "./material.ts";
import { renderDocument } from "./resource.ts";
import { documentRequests, documents } from "./table.ts";

/**
 * document_generation, the second job kind (issue 10): one step, generate, in which the worker's
 * LLM writes the document from the request (documents/request.ts or spawn.ts) and the meeting's
 * material. The document row is written in the transaction that completes the job, so a document
 * exists only whole, and only with its job completed and its document.generated event.
 */
export function documentGeneration(deps: { dataDir: string; loadMaterial: LoadMeetingMaterial; meter: UsageMeter }): JobKind {
  const requestOf = (db: Queryable, job: JobRow) => db.select().from(documentRequests).where(eq(documentRequests.jobId, job.id)).get();
  const current = (tx: Queryable, job: JobRow) => tx.select().from(jobs).where(eq(jobs.id, job.id)).get()!;

  return {
    kind: "document_generation",
    isStep: (step) => (DOCUMENT_STEPS as readonly string[]).includes(step),
    stageOf: () => "generating",
    progress: (_db, _job, _step, fraction) => Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 1000,
    stepAfter: () => null,
    stepInput(db, job, _step, runId): DocumentStepInput | null {
      const request = requestOf(db, job);
      const material = job.meetingId === null ? undefined : deps.loadMaterial(db, job.meetingId, request?.includeTranscript ?? false);
      // The meeting (and with it the request) was deleted, or its report is gone: nothing to write from.
      if (!request || !material?.report) return null;
      return {
        kind: "document_generation",
        runId,
        step: "generate",
        jobId: job.id,
        dataDir: deps.dataDir,
        document: {
          task: request.task,
          instructions: request.instructions,
          title: request.title,
          language: material.language ?? material.report.language,
          meeting: { title: material.title, date: material.date, participants: [...material.participants, ...material.unattributedSpeakers] },
          report: material.report.markdown,
          transcript: material.transcript,
        },
      };
    },
    onStepStarted() {},
    onStepDone(tx, job, result, now) {
      if (result.step !== "generate") return;
      const request = requestOf(tx, job)!;
      const id = randomId("doc");
      tx.insert(documents)
        .values({
          id,
          userId: job.userId,
          meetingId: job.meetingId!,
          jobId: job.id,
          title: result.document.title.slice(0, 300),
          templateId: request.templateId,
          language: result.document.language,
          model: result.document.model,
          markdown: result.document.markdown,
          createdAt: now,
          updatedAt: now,
        })
        .run();
      tx.update(jobs).set({ documentId: id }).where(eq(jobs.id, job.id)).run();
      deps.meter(
        tx,
        {
          operation: "document",
          userId: job.userId,
          plan: findUserById(tx, job.userId)?.plan ?? "free",
          channel: job.source,
          meetingId: job.meetingId,
          jobId: job.id,
          promptTokens: result.document.usage.promptTokens,
          completionTokens: result.document.usage.completionTokens,
          model: result.document.model,
        },
        now,
      );
    },
    // Events name the job: only the API's jobs emit them (a web app job is not the API's to read).
    onCompleted(tx, job, now) {
      if (job.source !== "api") return;
      const row = current(tx, job);
      const document = tx.select().from(documents).where(eq(documents.id, row.documentId!)).get()!;
      emitEvent(tx, {
        userId: job.userId,
        type: "document.generated",
        now,
        meetingId: job.meetingId,
        object: { ...renderJob(row), document: renderDocument(document) },
      });
    },
    onFailed(tx, job, now) {
      if (job.source !== "api") return;
      emitEvent(tx, { userId: job.userId, type: "document.failed", now, meetingId: job.meetingId, object: renderJob(current(tx, job)) });
    },
  };
}
