import type { Conn, TxConn } from "../db/conn.ts";
import type { JobKind } from "../jobs/kind.ts";
import type { JobQueue } from "../jobs/pg-boss-store.ts";
import type { JobRow } from "../jobs/query.ts";
import type { Clock } from "../lib/time.ts";
import { ApiError } from "../errors/api-error.ts";
import { LIVE_TAIL, LIVE_TRANSCRIPT, liveTailName } from "../storage/paths.ts";
import type { Storage } from "../storage/storage.ts";
import type { LiveSegment, LiveStepInput, LiveTranscriptFile } from "../worker/protocol.ts";
import { MIN_PART_BYTES } from "./draft-limits.ts";
import { liveTranscriptionJob } from "./live-transcript-job.ts";
import { contiguousDraftParts, forgetLiveJobs, queueLiveJob } from "./live-transcript-store.ts";
import { findMeeting, type ProcessedMeeting } from "./processing-store.ts";
import { promptFor } from "./vocabulary-store.ts";

/*
 * The live transcript of a recording still being made in the web app (issue 25, item 8).
 *
 * Each part the recorder sends queues a live_transcription job for its draft, unless one is
 * queued or running. A job runs one step, "live", on a worker (worker/live.ts: the newest window
 * of the parts received, merged into the draft's provisional transcript file, storage/paths.ts's
 * LIVE_TRANSCRIPT); when audio arrived meanwhile, the job that ends queues the next one, behind
 * the jobs already waiting (a recording never holds a worker for its whole length: other
 * meetings' processing takes turns with it). At most one step per draft runs at a time, and a
 * step that fell behind skips to the newest audio. Models run only in worker processes: on an
 * API-only node the job is queued like any other and a worker node runs it.
 *
 * Kept as a file in the draft's folder rather than a table: the worker (which has no database)
 * writes it whole after each step, it is gone with the folder when a draft is deleted (by its
 * owner, the idle sweep or an account deletion), and finishing the draft removes it, the full
 * pipeline's transcript replacing it. A meeting that asked for redaction gets no live transcript:
 * its words would sit on disk unredacted (the redact step only runs on the whole recording).
 * Metering: nothing is charged; the recording is charged once, when it is processed as a whole.
 */

export { liveTranscriptionJob } from "./live-transcript-job.ts";

/** Whether a meeting gets a live transcript: a web app recording still being made, without redaction. */
function hearsLive(meeting: Pick<ProcessedMeeting, "status" | "source" | "redaction"> | undefined): boolean {
  return meeting !== undefined && meeting.status === "draft" && meeting.source === "live_recording" && meeting.redaction === null;
}

/**
 * What the draft holds to hear: its parts from the first without a gap, and the bytes of those
 * and of the part still gathering, when the page sent it.
 */
async function receivedAudio(c: Conn, storage: Storage, meetingId: string): Promise<{ parts: number; bytes: number }> {
  const { parts, bytes } = await contiguousDraftParts(c, meetingId);
  const tail = await storage.open(meetingId, liveTailName(parts)).catch(() => null);
  return { parts, bytes: bytes + (tail?.size ?? 0) };
}

/** The draft's provisional transcript file, or null before its first step wrote it. */
export async function readLiveFile(storage: Storage, meetingId: string): Promise<LiveTranscriptFile | null> {
  const bytes = await storage.get(meetingId, LIVE_TRANSCRIPT).catch(() => null);
  if (!bytes) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as LiveTranscriptFile;
  } catch {
    return null; // never half-written (put renames a whole file), but never a 500 either
  }
}

/** The live_transcription job kind, registered with the scheduler (service.ts). */
export function liveTranscription(deps: { storage: Storage; jobQueue: JobQueue }): JobKind {
  const received = async (c: Conn, job: JobRow) => {
    const meeting = job.meetingId === null ? undefined : await findMeeting(c, job.meetingId);
    return { meeting, ...(hearsLive(meeting) ? await receivedAudio(c, deps.storage, meeting!.id) : { parts: -1, bytes: 0 }) };
  };
  return {
    declaration: liveTranscriptionJob,
    isStep: (step) => step === "live",
    stageOf: () => "transcribing",
    progress: async (_c, _job, _step, fraction) => fraction,
    // One step a job: the next one, if audio arrived meanwhile, is queued when this one completes.
    stepAfter: async () => null,
    async stepInput(c, job, _step, runId): Promise<LiveStepInput | null> {
      const { meeting, parts } = await received(c, job);
      if (!meeting) return null;
      return {
        kind: "live_transcription",
        runId,
        step: "live",
        jobId: job.id,
        meetingId: meeting.id,
        storageDir: deps.storage.location,
        // -1 for a draft finished meanwhile: a step with nothing to hear, which ends the job.
        parts,
        language: meeting.requestedLanguage === "auto" ? null : meeting.requestedLanguage,
        // The meeting's and the account's vocabulary, as the full transcription gets it.
        prompt: parts > 0 ? await promptFor(c, meeting) : null,
      };
    },
    async onStepStarted() {},
    async onStepDone(tx: TxConn, job: JobRow) {
      // The draft was finished while the step ran: the file it wrote is not kept.
      if (!hearsLive(await findMeeting(tx, job.meetingId!))) await deps.storage.delete(job.meetingId!, LIVE_TRANSCRIPT).catch(() => {});
    },
    async onCompleted(tx: TxConn, job: JobRow, now: number) {
      const { meeting, bytes } = await received(tx, job);
      if (!meeting || !hearsLive(meeting)) return;
      const heard = (await readLiveFile(deps.storage, meeting.id))?.heardBytes ?? 0;
      // Audio arrived while the step ran: the next step, behind the jobs already waiting.
      if (bytes > heard) await queueLiveJob(tx, deps.jobQueue, meeting, now, job.id);
    },
    async onFailed() {},
  };
}

/** What the meetings' use cases need to keep a draft's live transcript. */
export interface LiveDeps {
  conn: Conn;
  storage: Storage;
  clock: Clock;
  jobQueue: JobQueue;
  scheduler: { wake(): void };
}

/** After a part of a draft arrived: a live step for it, unless one is on its way or the draft gets none. */
export async function hearNewPart(deps: LiveDeps, draft: Pick<ProcessedMeeting, "id" | "userId" | "status" | "source" | "redaction">): Promise<void> {
  if (!hearsLive(draft)) return;
  if (await queueLiveJob(deps.conn, deps.jobQueue, draft, deps.clock.now())) deps.scheduler.wake();
}

/**
 * The part a recording's page is still gathering (under the minimum part size), for the live
 * transcript alone: kept beside the parts as the draft's one tail, never joined into the recording.
 * `index` is the part it will become: one already received, or past a gap, is not kept.
 */
export async function hearGatheringPart(deps: LiveDeps, draft: Pick<ProcessedMeeting, "id" | "userId" | "status" | "source" | "redaction">, index: number, bytes: Uint8Array): Promise<void> {
  if (!hearsLive(draft)) return;
  if (bytes.length === 0 || bytes.length >= MIN_PART_BYTES) throw new ApiError("validation_error", `A part still gathering holds 1 to ${MIN_PART_BYTES - 1} bytes.`);
  const { parts } = await contiguousDraftParts(deps.conn, draft.id);
  if (index !== parts) return;
  await deps.storage.put(draft.id, liveTailName(index), bytes, "tail");
  for (const name of await deps.storage.list(draft.id, LIVE_TAIL)) if (name !== liveTailName(index)) await deps.storage.delete(draft.id, name);
  await hearNewPart(deps, draft);
}

/** The draft was finished (its whole recording queued for processing): its provisional text goes. */
export async function endLiveTranscript(deps: Pick<LiveDeps, "conn" | "storage">, meetingId: string): Promise<void> {
  await deps.storage.delete(meetingId, LIVE_TRANSCRIPT);
  await deps.storage.delete(meetingId, LIVE_TAIL);
  await forgetLiveJobs(deps.conn, meetingId);
}

/** A draft's provisional text from segment `after` on, for its owner's recorder page. */
export interface LiveTranscript {
  /** True while the recording is a draft: the text is provisional; false once it was finished (the text is gone). */
  live: boolean;
  /** False for a recording that gets no live transcript (redaction asked for). */
  enabled: boolean;
  /** The index of the first segment given, and how many there are in all. */
  after: number;
  total: number;
  segments: LiveSegment[];
  /** Seconds of audio never transcribed live because the steps fell behind. */
  skippedSeconds: number;
  /** How far into the recording the live transcription has heard, in seconds. */
  heardSeconds: number;
}

export async function liveTranscriptOf(storage: Storage, meeting: Pick<ProcessedMeeting, "id" | "status" | "source" | "redaction">, after: number): Promise<LiveTranscript> {
  const enabled = meeting.source === "live_recording" && meeting.redaction === null;
  const file = meeting.status === "draft" && enabled ? await readLiveFile(storage, meeting.id) : null;
  const segments = file?.segments ?? [];
  const from = Math.min(Math.max(0, after), segments.length);
  return { live: meeting.status === "draft", enabled, after: from, total: segments.length, segments: segments.slice(from, from + 200), skippedSeconds: file?.skippedSeconds ?? 0, heardSeconds: file?.heardUntil ?? 0 };
}
