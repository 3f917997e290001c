import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Plan } from "../auth/plans.ts";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import { meetingProcessingJob } from "./processing-job.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import type { Clock } from "../lib/time.ts";
import { stepOutputPath } from "../storage/paths.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { admit } from "../usage/admission-store.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Channel } from "../lib/channel.ts";
import { loadParticipants, ownedMeetingRow, transcriptRowOf } from "./store.ts";

/**
 * What a report is written again from: the transcript of one of the user's completed meetings as
 * it is now, speakers named where a participant holds the label (the model reads who spoke by
 * name). 404 when the meeting is not the user's, 409 transcript_not_ready before it is completed.
 */
function reportSource(q: Queryable, userId: string, meetingId: string): { meetingId: string; transcript: StoredTranscript } {
  const meeting = ownedMeetingRow(q, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  const row = transcriptRowOf(q, meeting.id);
  if (!row || meeting.status !== "completed") {
    throw new ApiError("transcript_not_ready", "The meeting's processing must be complete before its report is written again.");
  }
  const { names } = loadParticipants(q, meeting.id);
  return {
    meetingId: meeting.id,
    transcript: {
      language: row.language,
      model: row.model ?? "",
      durationSeconds: row.durationSeconds ?? 0,
      speakers: row.speakers,
      segments: row.segments.map((segment) => ({ ...segment, speaker: names.get(segment.speaker) ?? segment.speaker })),
      turns: row.speakerTurns,
    },
  };
}

/** reportSource over a `Conn`. */
export function loadReportSource(c: Conn, userId: string, meetingId: string): Promise<{ meetingId: string; transcript: StoredTranscript }> {
  return run(c, (q) => reportSource(q, userId, meetingId));
}

/**
 * Writes a meeting's AI report again from its transcript as it is now (with its corrections and
 * speaker names): a processing job of the summarize step only (report_only), which replaces the
 * report and spawns no documents. The transcript goes to the step's input file first
 * (writeSummarizeInput), so the worker reads exactly what the database holds. The meeting must be
 * completed, with a transcript, and the account have a free processing slot and pay for it like
 * any language-model work (enqueueReportOnly). The meeting stays completed meanwhile, with its
 * report and its job as they are until the new report replaces the old one (an API client sees no
 * second processing: the web app's job is not the API's). In a transaction of its own over a
 * `Conn`: the job's id.
 */
export function queueReportRewrite(c: Conn, ...args: Parameters<typeof enqueueReportOnly> extends [Queryable, ...infer R] ? R : never): Promise<string> {
  return runTx(c, (tx) => enqueueReportOnly(tx, ...args));
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
 * cost of a report over `chars` characters of transcript (usage/admission-store.ts): from the API
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
  return admit(tx, deps, { account, channel }, { kind: "report", transcriptChars: chars }, now, () =>
    enqueueJob(tx, { userId: account.userId, kind: meetingProcessingJob, firstStep: "summarize", now, meetingId, channel, payload: { reportOnly: true, transcribeOnly: false } }),
  );
}
