import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import type { Channel } from "../lib/channel.ts";
import { randomId } from "../lib/ids.ts";
import type { JobKindDeclaration } from "./kind.ts";
import type { JobQueue } from "./pg-boss-store.ts";
import { jobs, type JobPayload } from "./table.ts";

export interface NewJob<P extends JobPayload> {
  userId: string;
  /** The kind's declaration (jobs/kind.ts), which validates the payload. */
  kind: JobKindDeclaration<P>;
  firstStep: string;
  now: number;
  channel?: Channel;
  meetingId?: string;
  parentJobId?: string;
  /** The kind's own data on the job. */
  payload: P;
  metadata?: Record<string, unknown> | null;
  /** The audio the job works on, when known: its queue expiry scales with it (jobExpirySeconds). */
  audioSeconds?: number | null;
}

/** Without a known duration, the longest recording admitted is assumed (4 h). */
const UNKNOWN_AUDIO_SECONDS = 4 * 3600;

/**
 * How long the queue lets one job run before taking it back from its worker (pg-boss's expiry):
 * 15 minutes plus 4 times the audio's duration, room for decoding, CPU transcription at about
 * real time, diarization and the report. Each step has its own, shorter, --stage-timeout; this
 * only bounds a job whose worker keeps heartbeating without ever finishing. At most 24 hours,
 * pg-boss's longest expiry (it refuses a longer one, which failed the upload of a recording of
 * more than about 5.8 hours with a 500).
 */
export function jobExpirySeconds(audioSeconds: number | null | undefined): number {
  return Math.min(15 * 60 + 4 * Math.ceil(audioSeconds ?? UNKNOWN_AUDIO_SECONDS), MAX_JOB_EXPIRY_SECONDS);
}

/** pg-boss's own ceiling on a job's expiry (its MAX_EXPIRATION_HOURS). */
export const MAX_JOB_EXPIRY_SECONDS = 24 * 3600;

/**
 * Queues a job, inside the caller's transaction (the one that creates what the job works on),
 * so a committed meeting always has its job and a rolled-back one leaves none: the jobs row, and
 * its message on `queue` (pg-boss on PostgreSQL; nothing more on SQLite, where the scheduler reads
 * the table). The payload is checked against its kind's declaration first: a job its kind could
 * not read back is never written.
 */
export async function enqueueJob<P extends JobPayload>(tx: Queryable, job: NewJob<P>, queue: JobQueue): Promise<string> {
  const payload = job.kind.payload.parse(job.payload);
  const id = randomId("job");
  await tx.insert(jobs).values({
      id,
      userId: job.userId,
      kind: job.kind.kind,
      status: "queued",
      stage: "queued",
      progress: 0,
      channel: job.channel ?? "api",
      meetingId: job.meetingId ?? null,
      parentJobId: job.parentJobId ?? null,
      payload,
      metadata: job.metadata ?? null,
      nextStep: job.firstStep,
      createdAt: job.now,
  });
  await queue.announce(tx, { id, kind: job.kind.kind, expireInSeconds: jobExpirySeconds(job.audioSeconds) });
  return id;
}

/** `enqueueJob` for a caller holding a `Conn` (the transaction that creates the job's subject). */
export function enqueue<P extends JobPayload>(c: Conn, job: NewJob<P>, queue: JobQueue): Promise<string> {
  return run(c, (q) => enqueueJob(q, job, queue));
}
