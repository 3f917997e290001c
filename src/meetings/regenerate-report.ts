import { eq } from "drizzle-orm";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Plan } from "../auth/plans.ts";
import type { Db, Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { enqueueJob } from "../jobs/enqueue.ts";
import { meetingProcessingJob } from "./processing-job.ts";
import { assertFreeSlot, type ParallelSlots } from "../jobs/slots.ts";
import type { Clock } from "../lib/time.ts";
import { stepOutputPath } from "../storage/paths.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { admitJob } from "../usage/admission.ts";
import { expectedReport } from "../usage/estimate.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Channel } from "./create.ts";
import { getOwnedMeetingRow, participantsOf } from "./render.ts";
import { transcripts } from "./table.ts";

/**
 * Writes a meeting's AI report again from its transcript as it is now (with its corrections and
 * speaker names): a processing job of the summarize step only (report_only), which replaces the
 * report and spawns no documents. The transcript goes to the step's input file first, so the
 * worker reads exactly what the database holds. The meeting must be completed, with a transcript,
 * and the account have a free processing slot and pay for it like any language-model work
 * (enqueueReportOnly). The meeting stays completed meanwhile, with its report and its job as they
 * are until the new report replaces the old one (an API client sees no second processing: the
 * web app's job is not the API's).
 */
export function regenerateReport(
  deps: { db: Db; dataDir: string; clock: Clock; slots: ParallelSlots; billing: BillingSettings },
  account: { userId: string; plan: Plan },
  meetingId: string,
  channel: Channel,
): string {
  const meeting = getOwnedMeetingRow(deps.db, account.userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  const row = deps.db.select().from(transcripts).where(eq(transcripts.meetingId, meeting.id)).get();
  if (!row || meeting.status !== "completed") {
    throw new ApiError("transcript_not_ready", "The meeting's processing must be complete before its report is written again.");
  }
  // The model reads who spoke by name where a participant holds the label.
  const names = new Map<string, string>();
  for (const p of participantsOf(deps.db, meeting.id)) for (const label of JSON.parse(p.speakerLabels) as string[]) names.set(label, p.name);
  const stored: StoredTranscript = {
    language: row.language,
    model: row.model ?? "",
    durationSeconds: row.durationSeconds ?? 0,
    speakers: row.speakers,
    segments: row.segments.map((segment) => ({ ...segment, speaker: names.get(segment.speaker) ?? segment.speaker })),
    turns: row.speakerTurns,
  };
  writeSummarizeInput(deps.dataDir, meeting.id, stored);
  const now = deps.clock.now();
  let jobId = "";
  deps.db.transaction(
    (tx) => {
      jobId = enqueueReportOnly(tx, deps, account, meeting.id, channel, transcriptChars(stored), now);
    },
    { behavior: "immediate" },
  );
  return jobId;
}

/** The transcript the summarize step reads (its input file), written before its job is queued. */
export function writeSummarizeInput(dataDir: string, meetingId: string, transcript: StoredTranscript): void {
  const input = stepOutputPath(dataDir, meetingId, "transcript");
  mkdirSync(dirname(input), { recursive: true, mode: 0o700 });
  writeFileSync(input, JSON.stringify(transcript), { mode: 0o600 });
}

/** Characters the model reads of a transcript: its words and who said them. */
export function transcriptChars(transcript: Pick<StoredTranscript, "segments">): number {
  return transcript.segments.reduce((sum, segment) => sum + segment.text.length + segment.speaker.length + 2, 0);
}

/**
 * A processing job of the summarize step only, after the slot check, admitted with the expected
 * cost of a report over `chars` characters of transcript (usage/admission.ts): from the API
 * wallet, or for the web app one writing of its monthly documents quota (402 when it cannot pay).
 */
export function enqueueReportOnly(
  tx: Queryable,
  deps: { slots: ParallelSlots; billing: BillingSettings },
  account: { userId: string; plan: Plan },
  meetingId: string,
  channel: Channel,
  chars: number,
  now: number,
): string {
  assertFreeSlot(tx, account.userId, account.plan, deps.slots);
  const jobId = enqueueJob(tx, { userId: account.userId, kind: meetingProcessingJob, firstStep: "summarize", now, meetingId, channel, payload: { reportOnly: true, transcribeOnly: false } });
  admitJob(tx, deps.billing, account, { jobId, channel }, expectedReport(deps.billing, chars), now);
  return jobId;
}
