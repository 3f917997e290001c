import type { Plan } from "../auth/plans.ts";
import type { Queryable } from "../db/client.ts";
import { runTx, type Conn } from "../db/conn.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import type { Channel } from "../lib/channel.ts";
import type { AdmissionDeps } from "../usage/admission.ts";
import { admit } from "../usage/admission-store.ts";
import type { MeetingStep } from "../worker/protocol.ts";
import { meetingProcessingJob } from "./processing-job.ts";
import { asksRedaction } from "./redaction-store.ts";

/**
 * A meeting's processing jobs, admitted and queued: each after the account's processing slots
 * are checked and what the job is expected to cost is admitted (usage/admit.ts), in the
 * caller's transaction (as a savepoint of it), or in a transaction of its own.
 */

/** A processing job to queue for a meeting whose recording is in place (or, for audio_url, to be downloaded). */
export interface ProcessingJobInput {
  firstStep: MeetingStep;
  transcribeOnly: boolean;
  documentTemplates: string[] | null;
  metadata: Record<string, unknown> | null;
  /** The recording's duration probed before, or null when not known yet. */
  audioSeconds: number | null;
}

/**
 * The processing job of a meeting whose recording is in place (or, for audio_url, to be
 * downloaded), after checking the account's processing slots, then admitted (usage/admission.ts):
 * for the API, its balance must pay the expected cost beside what its jobs in flight reserve (402);
 * for the web app, its own monthly minutes of audio must hold the recording (402
 * webapp_quota_reached): its usage never draws on the API's allowance (SPEC 8, rule 5). The
 * expected cost comes from `audioSeconds`, the duration probed before (null when not known yet:
 * audio_url, a container that does not say; the decode step then re-estimates it, meetings/processing.ts).
 */
export function queueProcessing(
  c: Conn,
  deps: AdmissionDeps,
  account: { userId: string; plan: Plan },
  meetingId: string,
  job: ProcessingJobInput,
  channel: Channel,
  now: number,
): Promise<string> {
  const { audioSeconds, firstStep, metadata, ...fields } = job;
  return runTx(c, async (tx) => {
    // The meeting's row says whether it is redacted (meetings/store.ts's insertMeeting resolved it).
    const payload = (await asksRedaction(tx, meetingId)) ? { ...fields, redact: true } : fields;
    return admit(tx, deps, { account, channel }, { kind: "processing", audioSeconds, report: !job.transcribeOnly }, now, () =>
      enqueueJob(tx, { userId: account.userId, kind: meetingProcessingJob, firstStep, now, meetingId, channel, metadata, payload, audioSeconds }, deps.jobQueue),
    );
  });
}

/**
 * A processing job of the summarize step only, after the slot check, admitted with the expected
 * cost of a report over `chars` characters of transcript (usage/admission.ts): from the API
 * wallet, or for the web app one writing of its monthly documents quota (402 when it cannot pay).
 * `given`: the meeting's transcript was given at its creation (source text), so this job is its
 * processing: it shows the documents and metadata asked for, and spawns those documents.
 */
export async function enqueueReportOnly(
  tx: Queryable,
  deps: AdmissionDeps,
  account: { userId: string; plan: Plan },
  meetingId: string,
  channel: Channel,
  chars: number,
  now: number,
  given?: { documentTemplates: string[] | null; metadata: Record<string, unknown> | null },
  /** A text meeting to redact: its given transcript goes through the redact step first (and only, with transcribe_only). */
  options: { redact?: boolean; transcribeOnly?: boolean } = {},
): Promise<string> {
  const base = { reportOnly: true, transcribeOnly: options.redact === true && options.transcribeOnly === true };
  const payload = { ...base, ...(given ? { givenTranscript: true, documentTemplates: given.documentTemplates } : {}), ...(options.redact ? { redact: true } : {}) };
  const metadata = given?.metadata ?? null;
  return admit(tx, deps, { account, channel }, { kind: "report", transcriptChars: chars }, now, () =>
    enqueueJob(tx, { userId: account.userId, kind: meetingProcessingJob, firstStep: options.redact ? "redact" : "summarize", now, meetingId, channel, metadata, payload, audioSeconds: 0 }, deps.jobQueue),
  );
}

/** enqueueReportOnly over a `Conn`: the job's id. */
export function queueReportOnly(c: Conn, ...args: Parameters<typeof enqueueReportOnly> extends [Queryable, ...infer R] ? R : never): Promise<string> {
  return runTx(c, (tx) => enqueueReportOnly(tx, ...args));
}
