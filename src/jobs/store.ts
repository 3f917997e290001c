import { and, eq, inArray, sql } from "drizzle-orm";
import { run, runTx, type Conn } from "../db/conn.ts";
import type { JobRow } from "./query.ts";
import { jobs, type JobPayload } from "./table.ts";

/** What the scheduler changes on a job row as it moves (status, stage, progress, step, error...). */
export type JobChange = Partial<Pick<typeof jobs.$inferInsert, "status" | "stage" | "progress" | "nextStep" | "stepAttempts" | "errorCode" | "errorMessage" | "startedAt" | "finishedAt">>;

/** One job by id, whoever's. */
export function loadJob(c: Conn, jobId: string): Promise<JobRow | undefined> {
  return run(c, (q) => q.select().from(jobs).where(eq(jobs.id, jobId)).get());
}

/** Changes a job row. */
export async function updateJob(c: Conn, jobId: string, change: JobChange): Promise<void> {
  await run(c, (q) => q.update(jobs).set(change).where(eq(jobs.id, jobId)).run());
}

/** Replaces a job's payload (its kind validated it: jobs/kind.ts `payloadOf`, then changed it). */
export async function setJobPayload(c: Conn, jobId: string, payload: JobPayload): Promise<void> {
  await run(c, (q) => q.update(jobs).set({ payload }).where(eq(jobs.id, jobId)).run());
}

/** Raises a running job's progress to `value` (never lowers it). */
export async function raiseProgress(c: Conn, jobId: string, value: number): Promise<void> {
  await run(c, (q) =>
    q
      .update(jobs)
      .set({ progress: sql`max(coalesce(${jobs.progress}, 0), ${value})` })
      .where(and(eq(jobs.id, jobId), eq(jobs.status, "processing")))
      .run(),
  );
}

/** Marks these jobs canceled where unfinished; answers the ids that were. */
export function cancelUnfinished(c: Conn, jobIds: string[], now: number): Promise<string[]> {
  return runTx(c, (q) =>
    q
      .update(jobs)
      .set({ status: "canceled", finishedAt: now })
      .where(and(inArray(jobs.id, jobIds), inArray(jobs.status, ["queued", "processing"])))
      .returning({ id: jobs.id })
      .all()
      .map((r) => r.id),
  );
}
