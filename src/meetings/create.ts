import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { Plan } from "../auth/plans.ts";
import type { Queryable } from "../db/client.ts";
import { runTx, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import { admit } from "../usage/admission-store.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Clock } from "../lib/time.ts";
import { meetingDir, recordingPath } from "../storage/paths.ts";
import type { CreateMeetingFields } from "./schema.ts";
import { firstMeetingStep } from "./processing.ts";
import { insertMeeting } from "./store.ts";
import type { Channel } from "../lib/channel.ts";
import { meetingProcessingJob } from "./processing-job.ts";

export type Recording =
  | { kind: "upload"; tmpPath: string; fileName: string }
  | { kind: "url"; url: string };

export interface CreateMeetingDeps {
  conn: Conn;
  dataDir: string;
  clock: Clock;
  slots: ParallelSlots;
  billing: BillingSettings;
  /**
   * A recording's duration in seconds as its container announces it (a probe, not a decode), or
   * null when it does not say or cannot be read: what admission reserves before processing starts.
   */
  measureRecording(path: string): Promise<number | null>;
}

/** A URL path segment decoded; kept as sent when its percent-escapes are not valid UTF-8 ("%zz", "%E9"). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A title when none is given: the file's name without extension, else the URL's last path part. */
function fallbackTitle(recording: Recording, recordedAt: number): string {
  const name =
    recording.kind === "upload"
      ? recording.fileName
      : decodeSegment(new URL(recording.url).pathname.split("/").filter(Boolean).pop() ?? "");
  const base = name.replace(/\.[A-Za-z0-9]{1,8}$/, "").trim().slice(0, 300);
  return base || `Meeting of ${new Date(recordedAt).toISOString().slice(0, 10)}`;
}

export function assertLabelsUnique(list: { speaker_labels: string[] }[], path: string): void {
  const seen = new Map<string, number>();
  list.forEach((p, i) =>
    p.speaker_labels.forEach((label) => {
      if (seen.has(label) && seen.get(label) !== i) {
        throw ApiError.validation([
          { field: `${path}[${i}].speaker_labels`, code: "duplicate_label", message: `${label} already belongs to ${path}[${seen.get(label)}].` },
        ]);
      }
      seen.set(label, i);
    }),
  );
}

/**
 * The processing job of a meeting whose recording is in place (or, for audio_url, to be
 * downloaded), after checking the account's processing slots, then admitted (usage/admission-store.ts):
 * for the API, its balance must pay the expected cost beside what its jobs in flight reserve (402);
 * for the web app, its own monthly minutes of audio must hold the recording (402
 * webapp_quota_reached): its usage never draws on the API's allowance (SPEC 8, rule 5). The
 * expected cost comes from `audioSeconds`, the duration probed before (null when not known yet:
 * audio_url, a container that does not say; the decode step then re-estimates it, meetings/processing.ts).
 */
export function enqueueProcessing(
  tx: Queryable,
  deps: Pick<CreateMeetingDeps, "slots" | "billing">,
  account: { userId: string; plan: Plan },
  meetingId: string,
  job: { firstStep: ReturnType<typeof firstMeetingStep>; transcribeOnly: boolean; documentTemplates: string[] | null; metadata: Record<string, unknown> | null; audioSeconds: number | null },
  channel: Channel,
  now: number,
): string {
  const { audioSeconds, firstStep, metadata, ...payload } = job;
  return admit(tx, deps, { account, channel }, { kind: "processing", audioSeconds, report: !job.transcribeOnly }, now, () =>
    enqueueJob(tx, { userId: account.userId, kind: meetingProcessingJob, firstStep, now, meetingId, channel, metadata, payload }),
  );
}

/**
 * Creates a meeting and its processing job in one transaction, after checking the account's
 * processing slots and that it can pay what the recording is expected to cost (402). An upload's
 * file is moved into the meeting's folder first and its duration probed, so a committed meeting
 * always has its recording; if the transaction fails the folder goes with it.
 * `inTransaction` runs last inside that transaction (the request's idempotency key is recorded
 * there, so the meeting and its key commit together).
 */
export async function createMeeting(
  deps: CreateMeetingDeps,
  account: { userId: string; plan: Plan },
  fields: CreateMeetingFields,
  recording: Recording,
  inTransaction: (tx: Queryable, meetingId: string) => void = () => {},
  channel: Channel = "api",
): Promise<{ meetingId: string; jobId: string }> {
  const meetingId = crypto.randomUUID();
  let jobId = "";
  assertLabelsUnique(fields.participants, "participants");

  let audioSeconds: number | null = null;
  if (recording.kind === "upload") {
    const target = recordingPath(deps.dataDir, meetingId);
    mkdirSync(dirname(target), { recursive: true });
    renameSync(recording.tmpPath, target);
    audioSeconds = await deps.measureRecording(target).catch(() => null);
  }
  const now = deps.clock.now();
  const recordedAt = fields.recorded_at ? Date.parse(fields.recorded_at) : now;
  try {
    await runTx(deps.conn, (tx) => {
      insertMeeting(
        tx,
        meetingId,
        account,
        fields,
        {
          source: recording.kind === "upload" ? "upload" : "url",
          fileName: recording.kind === "upload" ? recording.fileName : null,
          audioUrl: recording.kind === "url" ? recording.url : null,
          fallbackTitle: fallbackTitle(recording, recordedAt),
        },
        "queued",
        now,
      );
      jobId = enqueueProcessing(
        tx,
        deps,
        account,
        meetingId,
        {
          firstStep: firstMeetingStep(recording.kind),
          transcribeOnly: fields.transcribe_only,
          documentTemplates: fields.document_templates ?? null,
          metadata: fields.metadata ?? null,
          audioSeconds,
        },
        channel,
        now,
      );
      inTransaction(tx, meetingId);
    });
  } catch (error) {
    rmSync(meetingDir(deps.dataDir, meetingId), { recursive: true, force: true });
    throw error;
  }
  return { meetingId, jobId };
}

/** A draft meeting to store: whose, its fields, where its recording will come from, and what must admit it. */
export interface DraftMeetingInput {
  account: { userId: string };
  fields: CreateMeetingFields;
  origin: { source: "upload" | "live_recording"; fileName: string | null };
  /** Refuses the draft (the account's open drafts, say), checked in the transaction that creates it. */
  admit: (tx: Queryable) => void;
}

/**
 * A draft meeting (web app): no recording yet, no job; its id. Its recording arrives in numbered
 * parts (meetings/drafts.ts) and finishing it queues its processing.
 */
export async function storeDraftMeeting(c: Conn, input: DraftMeetingInput, now: number): Promise<string> {
  const meetingId = crypto.randomUUID();
  assertLabelsUnique(input.fields.participants, "participants");
  await runTx(c, (tx) => draftMeetingRows(tx, meetingId, input, now));
  return meetingId;
}

function draftMeetingRows(tx: Queryable, meetingId: string, { account, fields, origin, admit }: DraftMeetingInput, now: number): void {
  const fallback = origin.fileName ? fallbackTitle({ kind: "upload", tmpPath: "", fileName: origin.fileName }, now) : `Recording of ${new Date(now).toISOString().slice(0, 16).replace("T", " ")}`;
  admit(tx);
  insertMeeting(tx, meetingId, account, fields, { ...origin, audioUrl: null, fallbackTitle: fallback }, "draft", now);
}
