// The queue's series of /metrics (issue 22, operations) read from a real database: jobs queued and
// running by kind, the oldest queued job's age, jobs running per worker node, and on PostgreSQL
// pg-boss's own messages per queue and state.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { addUser } from "../auth/user-store.ts";
import { run } from "../db/conn.ts";
import { declareJobKind } from "../jobs/kind.ts";
import { JOBS_TABLE_QUEUE, PgBossQueue } from "../jobs/pg-boss-store.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import { jobs } from "../jobs/table.ts";
import { registerNode } from "../nodes/store.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { createServiceMetrics } from "./service-metrics.ts";

const NOW = 1_800_000_000_000;
const meetingJob = declareJobKind({ kind: "meeting_processing", stages: ["decode"], payload: z.object({}) });
let database: TempDatabase;
let boss: PgBossQueue | undefined;

beforeAll(async () => {
  database = tempDatabase("metrics");
  // On PostgreSQL the jobs are announced to pg-boss as the service does, so its table holds them.
  if (onPostgres) {
    boss = new PgBossQueue({ url: database.url!, supervise: false, log: () => {} });
    await boss.start(["meeting_processing", "document_generation"]);
  }
  const user = await addUser(database.conn, { email: "ops@firm.example", plan: "pro" });
  const queue = boss ?? JOBS_TABLE_QUEUE;
  await registerNode(database.conn, { id: "node_gpu1", role: "worker", hostname: "gpu-1", pid: 10, now: NOW - 5_000 });
  await registerNode(database.conn, { id: "node_gpu2", role: "worker", hostname: "gpu-2", pid: 11, now: NOW - 5_000 });
  await registerNode(database.conn, { id: "node_api1", role: "api", hostname: "api-1", pid: 12, now: NOW - 5_000 });
  await run(database.conn, async (q) => {
    // Two waiting, the older 90 s old; one running on gpu-1.
    await enqueueJob(q, { userId: user.id, kind: meetingJob, firstStep: "decode", now: NOW - 90_000, payload: {} }, queue);
    await enqueueJob(q, { userId: user.id, kind: meetingJob, firstStep: "decode", now: NOW - 30_000, payload: {} }, queue);
    const running = await enqueueJob(q, { userId: user.id, kind: meetingJob, firstStep: "decode", now: NOW - 120_000, payload: {} }, queue);
    await q.update(jobs).set({ status: "processing", leaseOwner: "node_gpu1", leaseExpiresAt: NOW + 60_000 }).where(eq(jobs.id, running));
  });
});
afterAll(async () => {
  await boss?.stop();
  await database.remove();
});

function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test("queue depth by kind and status, the oldest queued job's age, and jobs running per live worker node", async () => {
  const metrics = createServiceMetrics({
    conn: database.conn,
    now: () => NOW,
    workers: () => ({ started: 0, crashed: 0, pids: [] }),
    webhooks: () => ({ succeeded: 0, failedAttempts: 0, failed: 0, endpointsDisabled: 0 }),
  });
  const { body } = await metrics.render();
  expect(value(body, 'verbatim_jobs{kind="meeting_processing",status="queued"}')).toBe(2);
  expect(value(body, 'verbatim_jobs{kind="meeting_processing",status="processing"}')).toBe(1);
  expect(value(body, 'verbatim_jobs{kind="document_generation",status="queued"}')).toBe(0);
  // The running job, older still, is not waiting: the oldest queued one is 90 s old.
  expect(value(body, 'verbatim_job_oldest_queued_seconds{kind="meeting_processing"}')).toBe(90);
  expect(value(body, 'verbatim_job_oldest_queued_seconds{kind="document_generation"}')).toBe(0);
  expect(value(body, 'verbatim_node_jobs_running{node="node_gpu1",hostname="gpu-1"}')).toBe(1);
  expect(value(body, 'verbatim_node_jobs_running{node="node_gpu2",hostname="gpu-2"}')).toBe(0);
  // An API node runs no job, so it is no series.
  expect(body).not.toContain('node="node_api1"');
  if (onPostgres) {
    // pg-boss holds one message per job, none fetched by a worker yet.
    expect(value(body, 'verbatim_job_queue_messages{kind="meeting_processing",state="queued"}')).toBe(3);
    expect(value(body, 'verbatim_job_queue_messages{kind="meeting_processing",state="active"}')).toBe(0);
    expect(value(body, 'verbatim_job_queue_messages{kind="document_generation",state="queued"}')).toBe(0);
  } else {
    // SQLite's queue is the jobs table itself: there is no second count to show.
    expect(body).not.toContain("verbatim_job_queue_messages");
  }
});
