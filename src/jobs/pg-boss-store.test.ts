// pg-boss as the queue between nodes (issue 22), on the PostgreSQL run of the suite.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { run, withTx } from "../db/conn.ts";
import { exec, row } from "../db/sql.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { PgBossQueue } from "./pg-boss-store.ts";
import { jobExpirySeconds, MAX_JOB_EXPIRY_SECONDS } from "./queue-store.ts";

let database: TempDatabase;
const queues: PgBossQueue[] = [];
const node = async (supervise = true) => {
  const queue = new PgBossQueue({ url: database.url!, supervise, log: () => {} });
  queues.push(queue);
  await queue.start(["test_kind"]);
  return queue;
};

beforeAll(() => {
  if (onPostgres) database = tempDatabase("boss");
});
afterAll(async () => {
  for (const queue of queues) await queue.stop();
  await database?.remove();
});

test.skipIf(!onPostgres)("a job is announced in its creating transaction: rolled back, no worker hears of it; committed, exactly one of two nodes runs it", async () => {
  const api = await node(false);
  await expect(
    withTx(database.conn, async (tx) => {
      await run(tx, async (q) => {
        await exec(q, sql`SELECT 1`);
        await api.announce(q, { id: "job_rolled_back", kind: "test_kind", expireInSeconds: 60 });
      });
      throw new Error("the meeting was refused");
    }),
  ).rejects.toThrow("refused");
  await withTx(database.conn, (tx) => run(tx, (q) => api.announce(q, { id: "job_committed", kind: "test_kind", expireInSeconds: 60 })));

  const heard: Array<{ node: string; jobId: string }> = [];
  const workers = [await node(), await node()];
  await Promise.all(
    workers.map((worker, i) =>
      worker.work("test_kind", 2, async (jobId) => {
        heard.push({ node: `w${i}`, jobId });
      }),
    ),
  );
  const deadline = Date.now() + 10_000;
  while (heard.length === 0 && Date.now() < deadline) await Bun.sleep(50);
  await Bun.sleep(1500);
  expect(heard.map((h) => h.jobId)).toEqual(["job_committed"]);
});

test.skipIf(!onPostgres)("the same job announced twice is queued once (its message id is derived from the job id)", async () => {
  const api = await node(false);
  await run(database.conn, (q) => api.announce(q, { id: "job_twice", kind: "test_kind", expireInSeconds: 60 }));
  await run(database.conn, (q) => api.announce(q, { id: "job_twice", kind: "test_kind", expireInSeconds: 60 }));
  const counted = await run(database.conn, (q) => row<{ n: number }>(q, sql`SELECT count(*) AS n FROM pgboss.job WHERE data->>'jobId' = 'job_twice'`));
  expect(counted?.n).toBe(1);
});

test("a job's expiry grows with its audio up to pg-boss's ceiling of 24 hours", () => {
  expect(jobExpirySeconds(3600)).toBe(15 * 60 + 4 * 3600);
  expect(jobExpirySeconds(10 * 3600)).toBe(MAX_JOB_EXPIRY_SECONDS);
  expect(MAX_JOB_EXPIRY_SECONDS).toBe(24 * 3600);
});

test.skipIf(!onPostgres)("the job of a 10.5-hour recording is announced (pg-boss refuses an expiry past 24 hours)", async () => {
  const api = await node(false);
  await run(database.conn, (q) => api.announce(q, { id: "job_long", kind: "test_kind", expireInSeconds: jobExpirySeconds(10.5 * 3600) }));
  const stored = await run(database.conn, (q) => row<{ s: number }>(q, sql`SELECT expire_seconds AS s FROM pgboss.job WHERE data->>'jobId' = 'job_long'`));
  expect(stored?.s).toBe(MAX_JOB_EXPIRY_SECONDS);
});
