import { eq } from "drizzle-orm";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Plan } from "../auth/plans.ts";
import type { Db, Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { enqueueJob } from "../jobs/enqueue.ts";
import { assertFreeSlot, type ParallelSlots } from "../jobs/slots.ts";
import type { Clock } from "../lib/time.ts";
import { stepOutputPath } from "../storage/paths.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { assertCanPay } from "../usage/admission.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Channel } from "./create.ts";
import { getOwnedMeetingRow, participantsOf } from "./render.ts";
import { meetings, transcripts } from "./table.ts";

/**
 * Writes a meeting's AI report again from its transcript as it is now (with its corrections and
 * speaker names): a processing job of the summarize step only (report_only), which replaces the
 * report and spawns no documents. The transcript goes to the step's input file first, so the
 * worker reads exactly what the database holds. The meeting must be completed, with a transcript,
 * and the account have a free processing slot (and, for the API, a balance that can pay).
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
      tx.update(meetings).set({ status: "queued", updatedAt: now }).where(eq(meetings.id, meeting.id)).run();
      jobId = enqueueReportOnly(tx, deps, account, meeting.id, channel, now);
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

/** A processing job of the summarize step only, after the slot check (and, for the API, the balance check). */
export function enqueueReportOnly(
  tx: Queryable,
  deps: { slots: ParallelSlots; billing: BillingSettings },
  account: { userId: string; plan: Plan },
  meetingId: string,
  channel: Channel,
  now: number,
): string {
  assertFreeSlot(tx, account.userId, account.plan, deps.slots);
  if (channel === "api") assertCanPay(tx, deps.billing, account, now);
  return enqueueJob(tx, { userId: account.userId, kind: "meeting_processing", firstStep: "summarize", now, meetingId, source: channel, reportOnly: true, transcribeOnly: false });
}
