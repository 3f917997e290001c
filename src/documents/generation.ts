import { getUserById } from "../auth/user-store.ts";
import type { Conn, TxConn } from "../db/conn.ts";
import { debit, type UsageMeter } from "../usage/meter-store.ts";
import { recordEvent } from "../events/store.ts";
import type { JobKind } from "../jobs/kind.ts";
import { renderJob, type JobRow } from "../jobs/query.ts";
import { loadJob, setJobPayload } from "../jobs/store.ts";
import { randomId } from "../lib/ids.ts";
import { DOCUMENT_STEPS, type DocumentStepInput } from "../worker/protocol.ts";
import { documentGenerationJob, documentJobPayload } from "./generation-job.ts";
import { readMeetingMaterial, type LoadMeetingMaterial } from "./material-store.ts";
import { renderDocument } from "./resource.ts";
import { findDocument, insertDocument, requestOfJob } from "./generation-store.ts";
import type { Storage } from "../storage/storage.ts";

/**
 * document_generation, the second job kind (issue 10): one step, generate, in which the worker's
 * LLM writes the document from the request (documents/request.ts or spawnDocumentJobs in generation-store.ts) and the meeting's
 * material. The document row is written in the transaction that completes the job, so a document
 * exists only whole, and only with its job completed and its document.generated event.
 */
export function documentGeneration(deps: { storage: Storage; loadMaterial: LoadMeetingMaterial; meter: UsageMeter }): JobKind {
  const requestOf = (c: Conn, job: JobRow) => requestOfJob(c, job.id);
  const current = async (tx: TxConn, job: JobRow) => (await loadJob(tx, job.id))!;

  return {
    declaration: documentGenerationJob,
    isStep: (step) => (DOCUMENT_STEPS as readonly string[]).includes(step),
    stageOf: () => "generating",
    progress: async (_c, _job, _step, fraction) => Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 1000,
    stepAfter: async () => null,
    async stepInput(c, job, _step, runId): Promise<DocumentStepInput | null> {
      const request = await requestOf(c, job);
      const meetingId = job.meetingId;
      const material = meetingId === null ? undefined : await readMeetingMaterial(c, deps.loadMaterial, meetingId, request?.includeTranscript ?? false);
      // The meeting (and with it the request) was deleted, or its report is gone: nothing to write from.
      if (!request || !material?.report) return null;
      return {
        kind: "document_generation",
        runId,
        step: "generate",
        jobId: job.id,
        storageDir: deps.storage.location,
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
    async onStepStarted() {},
    async onStepDone(tx, job, result, now) {
      if (result.step !== "generate") return;
      const request = (await requestOf(tx, job))!;
      const id = randomId("doc");
      await insertDocument(tx, {
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
      });
      await setJobPayload(tx, job.id, { ...documentJobPayload(job), documentId: id });
      await debit(
        tx,
        deps.meter,
        {
          operation: "document",
          userId: job.userId,
          plan: (await getUserById(tx, job.userId))?.plan ?? "free",
          channel: job.channel,
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
    async onCompleted(tx, job, now) {
      if (job.channel !== "api") return;
      const row = await current(tx, job);
      const document = (await findDocument(tx, documentJobPayload(row).documentId!))!;
      await recordEvent(tx, {
        userId: job.userId,
        type: "document.generated",
        now,
        meetingId: job.meetingId,
        object: { ...renderJob(row), document: renderDocument(document) },
      });
    },
    async onFailed(tx, job, now) {
      if (job.channel !== "api") return;
      const row = await current(tx, job);
      await recordEvent(tx, { userId: job.userId, type: "document.failed", now, meetingId: job.meetingId, object: renderJob(row) });
    },
  };
}
