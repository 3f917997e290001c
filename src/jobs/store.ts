import { and, count, desc, eq, inArray, isNull, notInArray, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { greatest } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import { paginateAsync } from "../http/pagination.ts";
import { slotlessJobKinds } from "./kind.ts";
import { renderJob, type JobListFilter, type JobRow } from "./query.ts";
import { jobs, type JobPayload } from "./table.ts";

/** What the scheduler changes on a job row as it moves (status, stage, progress, step, error...). */
export type JobChange = Partial<Pick<typeof jobs.$inferInsert, "status" | "stage" | "progress" | "nextStep" | "stepAttempts" | "errorCode" | "errorMessage" | "startedAt" | "finishedAt">>;

/** One job by id, whoever's. */
export function loadJob(c: Conn, jobId: string): Promise<JobRow | undefined> {
  return run(c, async (q) => (await q.select().from(jobs).where(eq(jobs.id, jobId)).limit(1))[0]);
}

/** Changes a job row. */
export async function updateJob(c: Conn, jobId: string, change: JobChange): Promise<void> {
  await run(c, async (q) => {
    await q.update(jobs).set(change).where(eq(jobs.id, jobId));
  });
}

/** Replaces a job's payload (its kind validated it: jobs/kind.ts `payloadOf`, then changed it). */
export async function setJobPayload(c: Conn, jobId: string, payload: JobPayload): Promise<void> {
  await run(c, async (q) => {
    await q.update(jobs).set({ payload }).where(eq(jobs.id, jobId));
  });
}

/** Raises a running job's progress to `value` (never lowers it). */
export async function raiseProgress(c: Conn, jobId: string, value: number): Promise<void> {
  await run(c, async (q) => {
    await q
      .update(jobs)
      .set({ progress: greatest(sql`coalesce(${jobs.progress}, 0)`, value) })
      .where(and(eq(jobs.id, jobId), eq(jobs.status, "processing")));
  });
}

/** Marks these jobs canceled where unfinished; answers the ids that were. */
export function cancelUnfinished(c: Conn, jobIds: string[], now: number): Promise<string[]> {
  return runTx(c, async (q) =>
    (
      await q
        .update(jobs)
        .set({ status: "canceled", finishedAt: now })
        .where(and(inArray(jobs.id, jobIds), inArray(jobs.status, ["queued", "processing"])))
        .returning({ id: jobs.id })
    ).map((r) => r.id),
  );
}

/** Which of these jobs are still queued, with whose and which channel they are. */
export function queuedAmong(c: Conn, jobIds: string[]): Promise<Array<Pick<JobRow, "id" | "userId" | "channel">>> {
  if (!jobIds.length) return Promise.resolve([]);
  return run(c, (q) =>
    q
      .select({ id: jobs.id, userId: jobs.userId, channel: jobs.channel })
      .from(jobs)
      .where(and(inArray(jobs.id, jobIds), eq(jobs.status, "queued"))),
  );
}

/**
 * Fails a job before it ever ran, inside the caller's transaction body (spawnDocumentJobs queues
 * and refuses in one go); answers the row as it now is.
 */
export async function failQueuedJobIn(q: Queryable, jobId: string, error: { code: string; message: string }, now: number): Promise<JobRow> {
  const [row] = await q
    .update(jobs)
    .set({ status: "failed", nextStep: null, errorCode: error.code, errorMessage: error.message, finishedAt: now })
    .where(eq(jobs.id, jobId))
    .returning();
  return row!;
}

/** The account's API jobs, newest first, one page. */
export function listJobs(c: Conn, userId: string, filter: JobListFilter) {
  return run(c, (db) =>
    paginateAsync(
      filter,
      (after, take) =>
        db
          .select()
          .from(jobs)
          .where(
            and(
              eq(jobs.userId, userId),
              eq(jobs.channel, "api"),
              filter.kind ? eq(jobs.kind, filter.kind) : undefined,
              filter.status ? eq(jobs.status, filter.status) : undefined,
              newestFirstAfter(jobs.createdAt, jobs.id, after),
            ),
          )
          .orderBy(desc(jobs.createdAt), desc(jobs.id))
          .limit(take),
      (row) => [row.createdAt, row.id],
      (rows) => rows.map(renderJob),
    ),
  );
}

/** One job of the account; another account's job, or a webapp job, is not found. */
export function getJob(c: Conn, userId: string, jobId: string) {
  return run(c, async (q) => {
    const [row] = await q
      .select()
      .from(jobs)
      .where(and(eq(jobs.id, jobId), eq(jobs.userId, userId), eq(jobs.channel, "api")))
      .limit(1);
    if (!row) throw ApiError.notFound(`Job ${jobId}`);
    return renderJob(row);
  });
}

/** Queued and running jobs of the account that hold a processing slot (none queued by another job, none of a slotless kind). */
export async function busySlotsIn(q: Queryable, userId: string): Promise<number> {
  const [row] = await q
    .select({ n: count() })
    .from(jobs)
    .where(
      and(
        eq(jobs.userId, userId),
        inArray(jobs.status, ["queued", "processing"]),
        isNull(jobs.parentJobId),
        slotlessJobKinds().length ? notInArray(jobs.kind, slotlessJobKinds()) : undefined,
      ),
    );
  return row?.n ?? 0;
}
