import { and, eq, inArray, ne, notInArray } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, withTx, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import type { JobQueue } from "../jobs/pg-boss-store.ts";
import { jobs } from "../jobs/table.ts";
import { draftParts } from "./table.ts";
import { liveTranscriptionJob } from "./live-transcript-job.ts";

// What the live_transcription kind (live-transcript.ts) reads and writes of the jobs table.

const UNFINISHED = ["queued", "processing"] as const;

/**
 * Queues a live step for the draft unless one is already queued or running (it hears the new part
 * when it runs); the live jobs of the draft that ended are removed (but `keep`, the one ending in
 * this transaction), so a recording leaves one or two rows, not one per part. The job's id, or
 * null when one was already there.
 */
async function queueLiveJobIn(q: Queryable, queue: JobQueue, draft: { id: string; userId: string }, now: number, keep?: string): Promise<string | null> {
  await lockAccount(q, draft.userId);
  const mine = and(eq(jobs.meetingId, draft.id), eq(jobs.kind, liveTranscriptionJob.kind));
  const [busy] = await q.select({ id: jobs.id }).from(jobs).where(and(mine, inArray(jobs.status, [...UNFINISHED]))).limit(1);
  if (busy) return null;
  await q.delete(jobs).where(and(mine, notInArray(jobs.status, [...UNFINISHED]), keep ? ne(jobs.id, keep) : undefined));
  return enqueueJob(q, { userId: draft.userId, kind: liveTranscriptionJob, firstStep: "live", now, channel: "webapp", meetingId: draft.id, payload: {} }, queue);
}

/** `queueLiveJobIn` in a transaction (its own after a part arrived; a savepoint of the one completing a live job). */
export function queueLiveJob(c: Conn, queue: JobQueue, draft: { id: string; userId: string }, now: number, keep?: string): Promise<string | null> {
  return withTx(c, (tx) => run(tx, (q) => queueLiveJobIn(q, queue, draft, now, keep)));
}

/**
 * Removes the draft's live jobs that ended or never started (the draft was finished: there is
 * nothing more to hear); one running ends on its own, its step given nothing to hear.
 */
export function forgetLiveJobs(c: Conn, meetingId: string): Promise<void> {
  return run(c, async (q: Queryable) => {
    await q.delete(jobs).where(and(eq(jobs.meetingId, meetingId), eq(jobs.kind, liveTranscriptionJob.kind), ne(jobs.status, "processing")));
  });
}

/** The parts of a draft received from the first without a gap, and their bytes. */
export function contiguousDraftParts(c: Conn, meetingId: string): Promise<{ parts: number; bytes: number }> {
  return run(c, async (q) => {
    const rows = await q
      .select({ index: draftParts.partIndex, bytes: draftParts.bytes })
      .from(draftParts)
      .where(eq(draftParts.meetingId, meetingId))
      .orderBy(draftParts.partIndex);
    let parts = 0;
    let bytes = 0;
    while (rows[parts]?.index === parts) bytes += rows[parts++]!.bytes;
    return { parts, bytes };
  });
}
