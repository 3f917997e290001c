import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import type { Channel } from "../lib/channel.ts";
import { randomId } from "../lib/ids.ts";
import type { JobKindDeclaration } from "./kind.ts";
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
}

/**
 * Queues a job, inside the caller's transaction (the one that creates what the job works on),
 * so a committed meeting always has its job and a rolled-back one leaves none. The scheduler
 * finds it on its next look (callers wake it after committing). The payload is checked against
 * its kind's declaration first: a job its kind could not read back is never written.
 */
export async function enqueueJob<P extends JobPayload>(tx: Queryable, job: NewJob<P>): Promise<string> {
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
  return id;
}

/** `enqueueJob` for a caller holding a `Conn` (the transaction that creates the job's subject). */
export function enqueue<P extends JobPayload>(c: Conn, job: NewJob<P>): Promise<string> {
  return run(c, (q) => enqueueJob(q, job));
}
