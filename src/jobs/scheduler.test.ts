// The scheduler over a real database with a job kind of the test's own and a worker pool that
// answers at once: steps in order, each step's move and its kind's hooks in one transaction
// (a hook that throws rolls the move back), failures, cancel, and the fence on a lost claim.
import { JOBS_TABLE_QUEUE } from "./pg-boss-store.ts";
import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { addUser } from "../auth/user-store.ts";
import { run } from "../db/conn.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import type { StepInput, StepResult } from "../worker/protocol.ts";
import { enqueueJob } from "./queue-store.ts";
import { declareJobKind, payloadOf, type JobKind } from "./kind.ts";
import { Scheduler } from "./scheduler.ts";
import { loadJob, setJobPayload, updateJob } from "./store.ts";
import { jobs } from "./table.ts";
import type { StepOutcome } from "./worker-pool.ts";

const temps: TempDatabase[] = [];
afterAll(async () => {
  for (const t of temps) await t.remove();
});

const echoJob = declareJobKind({
  kind: "test_echo",
  stages: ["echoing"],
  payload: z.object({ seen: z.array(z.string()).optional(), throwOn: z.string().optional() }),
});
const STEPS = ["one", "two"];

/** The kind: two steps; each finished step is written into the payload; `throwOn` makes that step's hook throw. */
function echoKind(calls: string[]): JobKind {
  return {
    declaration: echoJob,
    isStep: (step) => STEPS.includes(step),
    stageOf: () => "echoing",
    progress: async (_c, _job, step, fraction) => (STEPS.indexOf(step) + fraction) / STEPS.length,
    stepAfter: async (_c, _job, step) => STEPS[STEPS.indexOf(step) + 1] ?? null,
    stepInput: async (_c, job, step, runId) => ({ kind: "test", step, runId, jobId: job.id }) as unknown as StepInput,
    async onStepStarted(tx, job, step) {
      calls.push(`started ${step} (${(await loadJob(tx, job.id))!.status})`);
    },
    async onStepDone(tx, job, result) {
      const step = (result as unknown as { step: string }).step;
      const current = payloadOf(echoJob, (await loadJob(tx, job.id))!);
      await setJobPayload(tx, job.id, { ...current, seen: [...(current.seen ?? []), step] });
      calls.push(`done ${step}`);
      if (current.throwOn === step) throw new Error(`the ${step} hook broke`);
    },
    async onCompleted(tx, job) {
      calls.push(`completed (${(await loadJob(tx, job.id))!.status})`);
    },
    async onFailed(tx, job) {
      calls.push(`failed (${(await loadJob(tx, job.id))!.errorCode})`);
    },
  };
}

async function setUp(name: string, outcome: (input: { step: string }) => StepOutcome | Promise<StepOutcome>) {
  const temp = tempDatabase(`scheduler-${name}`);
  temps.push(temp);
  const user = await addUser(temp.conn, { email: `${name}@example.com`, plan: "pro" });
  const calls: string[] = [];
  const logs: string[] = [];
  const canceled: string[] = [];
  const scheduler = new Scheduler({
    conn: temp.conn,
    pool: {
      size: 1,
      run: async (input) => outcome(input as unknown as { step: string }),
      cancel: (runId) => (canceled.push(runId), true),
      stop: async () => {},
    },
    kinds: [echoKind(calls)],
    clock: { now: () => Date.now() },
    stepTimeoutMs: 1000,
    maxStepAttempts: 2,
    privatePaths: [],
    log: (line) => logs.push(line),
  });
  const enqueue = (payload: z.output<typeof echoJob.payload> = {}) =>
    run(temp.conn, (q) => enqueueJob(q, { userId: user.id, kind: echoJob, firstStep: "one", now: Date.now(), payload }, JOBS_TABLE_QUEUE));
  const ended = async (jobId: string) => {
    for (let i = 0; i < 200; i++) {
      const job = (await loadJob(temp.conn, jobId))!;
      if (!["queued", "processing"].includes(job.status)) return job;
      await Bun.sleep(10);
    }
    throw new Error(`job ${jobId} did not end`);
  };
  return { temp, scheduler, calls, logs, canceled, enqueue, ended };
}

const done = (input: { step: string }): StepOutcome => ({ kind: "done", result: { step: input.step } as unknown as StepResult });

test("a job runs its kind's steps in order; each step's hooks see the job row as it moved, in the same transaction", async () => {
  const { scheduler, calls, enqueue, ended } = await setUp("steps", done);
  const jobId = await enqueue();
  await scheduler.start();
  const job = await ended(jobId);
  await scheduler.stop();
  expect(job).toMatchObject({ status: "completed", stage: "done", progress: 1, nextStep: null, payload: { seen: ["one", "two"] } });
  expect(calls).toEqual(["started one (processing)", "done one", "started two (processing)", "done two", "completed (completed)"]);
});

test("a hook that throws rolls back the step's whole move: the job row and the kind's change alike", async () => {
  const { scheduler, calls, logs, enqueue, temp } = await setUp("rollback", done);
  const jobId = await enqueue({ throwOn: "two" });
  await scheduler.start();
  for (let i = 0; i < 200 && !logs.some((l) => l.includes("the two hook broke")); i++) await Bun.sleep(10);
  await scheduler.stop();
  expect(logs.some((l) => l.includes(`job ${jobId} stopped on an unexpected error`))).toBe(true);
  const job = (await loadJob(temp.conn, jobId))!;
  // Step one's move committed; step two's did not: still at two, with only one seen.
  expect(job).toMatchObject({ status: "processing", nextStep: "two", payload: { seen: ["one"], throwOn: "two" } });
  expect(calls).toContain("done two");
  expect(calls).not.toContain("completed (completed)");
});

test("a failure is retried while tries remain, then fails the job and tells its kind in the failing transaction", async () => {
  const { scheduler, calls, logs, enqueue, ended } = await setUp("fail", () => ({ kind: "failed", code: "double_failure", message: "told to fail", retryable: true }));
  const jobId = await enqueue();
  await scheduler.start();
  const job = await ended(jobId);
  await scheduler.stop();
  expect(job).toMatchObject({ status: "failed", errorCode: "double_failure", errorMessage: "told to fail", stepAttempts: 1 });
  expect(calls).toEqual(["started one (processing)", "started one (processing)", "failed (double_failure)"]);
  expect(logs.filter((l) => l.includes(`job ${jobId} step one failed (double_failure`))).toHaveLength(1);
});

test("cancel marks an unfinished job canceled and stops its step's worker; a finished job stays as it is", async () => {
  let release!: (outcome: StepOutcome) => void;
  const { scheduler, canceled, enqueue, temp } = await setUp("cancel", () => new Promise<StepOutcome>((resolve) => (release = resolve)));
  const jobId = await enqueue();
  const finished = await enqueue();
  await updateJob(temp.conn, finished, { status: "completed" });
  await scheduler.start();
  for (let i = 0; i < 200 && !release; i++) await Bun.sleep(10);
  await scheduler.cancel([jobId, finished]);
  release({ kind: "canceled" });
  await scheduler.stop();
  expect(canceled).toHaveLength(1);
  expect((await loadJob(temp.conn, jobId))!.status).toBe("canceled");
  expect((await loadJob(temp.conn, finished))!.status).toBe("completed");
});

test("a scheduler whose claim another took over while its step ran writes nothing of that step", async () => {
  let release!: (outcome: StepOutcome) => void;
  const { scheduler, calls, logs, enqueue, temp } = await setUp("fenced", () => new Promise<StepOutcome>((resolve) => (release = resolve)));
  const jobId = await enqueue();
  await scheduler.start();
  for (let i = 0; i < 200 && !release; i++) await Bun.sleep(10);
  // Another node's scheduler holds the job now (this one stalled past its lease).
  await run(temp.conn, (q) => q.update(jobs).set({ leaseOwner: "sched_other" }).where(eq(jobs.id, jobId)));
  release({ kind: "done", result: { step: "one" } as unknown as StepResult });
  for (let i = 0; i < 200 && !logs.some((l) => l.includes("another node holds the job now")); i++) await Bun.sleep(10);
  await scheduler.stop();
  expect(calls).toEqual(["started one (processing)"]);
  expect(await loadJob(temp.conn, jobId)).toMatchObject({ status: "processing", nextStep: "one", leaseOwner: "sched_other", payload: {} });
});
