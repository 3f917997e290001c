import type { JobQueue } from "../jobs/pg-boss-store.ts";
import type { Plan } from "../auth/plans.ts";
import { withTx, type Conn, type TxConn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Clock } from "../lib/time.ts";
import { RECORDING } from "../storage/paths.ts";
import type { Storage } from "../storage/storage.ts";
import type { CreateMeetingFields } from "./schema.ts";
import { firstMeetingStep } from "./processing.ts";
import { insertMeeting } from "./store.ts";
import type { Channel } from "../lib/channel.ts";
import { queueProcessing } from "./queue-store.ts";

export type Recording =
  | { kind: "upload"; tmpPath: string; fileName: string }
  | { kind: "url"; url: string };

export interface CreateMeetingDeps {
  conn: Conn;
  /** Where the recording goes (an upload's temp file is in its tmpDir). */
  storage: Storage;
  clock: Clock;
  slots: ParallelSlots;
  billing: BillingSettings;
  /** Where a queued job is announced to the workers (jobs/pg-boss-store.ts). */
  jobQueue: JobQueue;
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
  inTransaction: (tx: TxConn, meetingId: string) => Promise<void> = async () => {},
  channel: Channel = "api",
): Promise<{ meetingId: string; jobId: string }> {
  const meetingId = crypto.randomUUID();
  let jobId = "";
  assertLabelsUnique(fields.participants, "participants");

  let audioSeconds: number | null = null;
  if (recording.kind === "upload") {
    await deps.storage.adopt(meetingId, RECORDING, recording.tmpPath);
    audioSeconds = await deps.measureRecording(deps.storage.localPath(meetingId, RECORDING)).catch(() => null);
  }
  const now = deps.clock.now();
  const recordedAt = fields.recorded_at ? Date.parse(fields.recorded_at) : now;
  try {
    await withTx(deps.conn, async (tx) => {
      await insertMeeting(
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
      jobId = await queueProcessing(
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
      await inTransaction(tx, meetingId);
    });
  } catch (error) {
    await deps.storage.delete(meetingId);
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
  admit: (tx: TxConn) => Promise<void>;
}

/**
 * A draft meeting (web app): no recording yet, no job; its id. Its recording arrives in numbered
 * parts (meetings/drafts.ts) and finishing it queues its processing.
 */
export async function storeDraftMeeting(c: Conn, input: DraftMeetingInput, now: number): Promise<string> {
  const meetingId = crypto.randomUUID();
  assertLabelsUnique(input.fields.participants, "participants");
  const { account, fields, origin, admit } = input;
  const fallback = origin.fileName ? fallbackTitle({ kind: "upload", tmpPath: "", fileName: origin.fileName }, now) : `Recording of ${new Date(now).toISOString().slice(0, 16).replace("T", " ")}`;
  await withTx(c, async (tx) => {
    await admit(tx);
    await insertMeeting(tx, meetingId, account, fields, { ...origin, audioUrl: null, fallbackTitle: fallback }, "draft", now);
  });
  return meetingId;
}
