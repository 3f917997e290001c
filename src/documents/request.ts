import type { JobQueue } from "../jobs/pg-boss-store.ts";
import type { Account } from "../auth/actor.ts";
import { withTx, type Conn, type TxConn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { documentGenerationJob } from "./generation-job.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import type { Channel } from "../lib/channel.ts";
import { admitAndQueue } from "../usage/admission-store.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Clock } from "../lib/time.ts";
import type { TemplateCatalogue } from "../templates/catalogue.ts";
import { readMeetingMaterial, type LoadMeetingMaterial } from "./material-store.ts";
import type { DocumentRequestBody } from "./schema.ts";
import { insertDocumentRequest } from "./store.ts";

export interface RequestDocumentDeps {
  conn: Conn;
  clock: Clock;
  slots: ParallelSlots;
  billing: BillingSettings;
  /** Where a queued job is announced to the workers (jobs/pg-boss-store.ts). */
  jobQueue: JobQueue;
  templates: Pick<TemplateCatalogue, "get">;
  loadMaterial: LoadMeetingMaterial;
}

/**
 * Queues a document_generation job for one of the user's meetings (POST /v1/meetings/{id}/documents):
 * the meeting must be completed with its AI report (409 summary_not_ready otherwise, transcribe_only included)
 * the account a free processing slot (429) and a balance, or for the web app a documents quota, that can pay its expected cost beside what its jobs in flight hold (402, usage/admission-store.ts). The request (the template's prompt as it is now, or
 * the client's) is stored with the job, in one transaction with it; `inTransaction` runs last in it
 * (the idempotency key is recorded there).
 */
export async function requestDocument(
  deps: RequestDocumentDeps,
  account: Account,
  meetingId: string,
  body: DocumentRequestBody,
  inTransaction: (tx: TxConn, jobId: string) => Promise<void> = async () => {},
  /** The web app's requests are metered on their own channel and never draw on the API allowance. */
  channel: Channel = "api",
): Promise<string> {
  const now = deps.clock.now();
  return withTx(deps.conn, async (t) => {
    // The transcript only when the document reads it: its size is part of the expected cost.
    const material = await readMeetingMaterial(t, deps.loadMaterial, meetingId, body.include_transcript === true);
    if (!material || material.userId !== account.userId) throw ApiError.notFound(`Meeting ${meetingId}`);
    const template = body.template_id === undefined ? undefined : deps.templates.get(body.template_id);
    if (body.template_id !== undefined && !template) {
      throw ApiError.validation([
        { field: "template_id", code: "unknown_template", message: `There is no template ${body.template_id}; GET /v1/templates lists them.` },
      ]);
    }
    if (material.transcribeOnly) {
      throw new ApiError("summary_not_ready", "This meeting was created with transcribe_only: it has no AI report to write documents from.");
    }
    if (!material.report) {
      throw new ApiError("summary_not_ready", "The AI report is not ready yet. Wait for processing.completed, then ask again.");
    }
    // SPEC 4: a completed meeting. A report being written again (queued or processing) is not ready.
    if (material.status !== "completed") {
      throw new ApiError("summary_not_ready", `The meeting is ${material.status}, not completed: its AI report is not ready. Wait for processing.completed, then ask again.`);
    }
    const readChars = material.report.markdown.length + (material.transcript ?? []).reduce((sum, s) => sum + s.text.length + s.speaker.length + 2, 0);
    const jobId = await admitAndQueue(t, deps, { account, channel }, { kind: "document", readChars }, now, {
      userId: account.userId,
      kind: documentGenerationJob,
      channel,
      firstStep: "generate",
      now,
      meetingId: material.meetingId,
      payload: {},
      metadata: body.metadata ?? null,
    });
    const subject = material.meetingId;
    await insertDocumentRequest(t, {
      jobId,
      userId: account.userId,
      meetingId: subject,
      templateId: template?.id ?? null,
      task: template ? template.prompt : body.prompt!,
      title: body.title ?? template?.name ?? null,
      instructions: body.instructions ?? null,
      includeTranscript: body.include_transcript,
      createdAt: now,
    });
    await inTransaction(t, jobId);
    return jobId;
  });
}
