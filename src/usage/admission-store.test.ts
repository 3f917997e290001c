// The one admission, for both channels, against a real store: the slot, the API wallet or the web
// app's quotas, the reservation; and the fail-fast check before an upload.
import { JOBS_TABLE_QUEUE } from "../jobs/pg-boss-store.ts";
import { meetingProcessingJob } from "../meetings/processing-job.ts";
import { describe, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { addUser } from "../auth/user-store.ts";
import type { Queryable } from "../db/client.ts";
import { runTx } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import { jobs } from "../jobs/table.ts";
import type { Channel } from "../lib/channel.ts";
import { enqueueReportOnly } from "../meetings/queue-store.ts";
import { freshDatabaseEachTest, type TempDatabase } from "../../test/support/database.ts";
import type { AdmissionDeps } from "./admission.ts";
import { admit, admitBeforeUpload, checkBeforeUpload } from "./admission-store.ts";
import { reservationOf, reserve } from "./reservation-store.ts";
import { DEFAULT_BILLING } from "./settings.ts";
import { usageReservations } from "./table.ts";

const NOV = Date.parse("2026-11-10T12:00:00Z");
const deps: AdmissionDeps = {
  jobQueue: JOBS_TABLE_QUEUE,
  slots: { free: 1 },
  billing: {
    ...DEFAULT_BILLING,
    allowances: { free: 100 },
    holdPerOperation: 5,
    webappQuotas: { audioMinutes: { free: 2 }, documents: { free: 1 } },
  },
};
let database: TempDatabase;
let userId: string;
const who = (channel: Channel) => ({ account: { userId, plan: "free" }, channel });
const queue = (q: Queryable, channel: Channel) => () => enqueueJob(q, { userId, kind: meetingProcessingJob, firstStep: "decode", now: NOV, channel, payload: {} }, JOBS_TABLE_QUEUE);

async function codeOf(run: () => Promise<unknown>): Promise<string | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

async function jobCount(): Promise<number> {
  return (await inTx((q) => q.select({ n: count() }).from(jobs)))[0]!.n;
}

freshDatabaseEachTest("admit", async (created) => {
  database = created;
  userId = (await addUser(created.conn, { email: "dept@firm.example", plan: "free" })).id;
});

/** `body` in a transaction of its own on the test's database. */
const inTx = <T>(body: (q: Queryable) => Promise<T> | T) => runTx(database.conn, body);
const reservation = (jobId: string) => inTx((q) => reservationOf(q, jobId));

describe("admit", () => {
  test("API: a free slot, the job queued, its expected cost payable and reserved", async () => {
    const jobId = await inTx((tx) => admit(tx, deps, who("api"), { kind: "processing", audioSeconds: 60, report: false }, NOV, queue(tx, "api")));
    expect(await reservation(jobId)).toMatchObject({ userId, channel: "api", amountMinor: 5, audioSeconds: 0, documents: 0 });
  });

  test("no free slot: 429 before anything is queued", async () => {
    await inTx((tx) => admit(tx, deps, who("api"), { kind: "processing", audioSeconds: null, report: true }, NOV, queue(tx, "api")));
    let queued = false;
    const code = await codeOf(() =>
      inTx((tx) =>
        admit(tx, deps, who("api"), { kind: "processing", audioSeconds: null, report: true }, NOV, () => {
          queued = true;
          return "job_never";
        }),
      ),
    );
    expect(code).toBe("parallel_processing_limit");
    expect(queued).toBe(false);
  });

  test("API: a cost the wallet cannot pay is 402 and the transaction leaves no job", async () => {
    // 10 hours of audio at 60 per hour: far beyond the allowance of 100.
    const code = await codeOf(() => inTx((tx) => admit(tx, deps, who("api"), { kind: "processing", audioSeconds: 36_000, report: false }, NOV, queue(tx, "api"))));
    expect(code).toBe("insufficient_balance");
    expect(await jobCount()).toBe(0);
  });

  test("web app: audio beyond the month's minutes is 402 webapp_quota_reached; within them it reserves seconds, not money", async () => {
    expect(await codeOf(() => inTx((tx) => admit(tx, deps, who("webapp"), { kind: "processing", audioSeconds: 600, report: true }, NOV, queue(tx, "webapp"))))).toBe(
      "webapp_quota_reached",
    );
    const jobId = await inTx((tx) => admit(tx, deps, who("webapp"), { kind: "processing", audioSeconds: 90, report: true }, NOV, queue(tx, "webapp")));
    expect(await reservation(jobId)).toMatchObject({ channel: "webapp", amountMinor: 0, audioSeconds: 90, documents: 0 });
  });

  test("web app: a report written again counts against the documents quota", async () => {
    const first = await inTx((tx) => admit(tx, { ...deps, slots: { free: 5 } }, who("webapp"), { kind: "report", transcriptChars: 1000 }, NOV, queue(tx, "webapp")));
    expect(await reservation(first)).toMatchObject({ channel: "webapp", documents: 1 });
    expect(await codeOf(() => inTx((tx) => admit(tx, { ...deps, slots: { free: 5 } }, who("webapp"), { kind: "document", readChars: 10 }, NOV, queue(tx, "webapp"))))).toBe(
      "webapp_quota_reached",
    );
  });

  test("regenerating a report from the web app checks the web app's documents quota (enqueueReportOnly goes through admit)", async () => {
    const wide = { ...deps, slots: { free: 5 } };
    // The month's one document is held by a document in flight.
    await inTx(async (tx) => reserve(tx, { jobId: await queue(tx, "webapp")(), userId, channel: "webapp" }, { cost: 0, audioSeconds: 0, documents: 1 }, NOV));
    const code = await codeOf(() => inTx((tx) => enqueueReportOnly(tx, wide, { userId, plan: "free" }, crypto.randomUUID(), "webapp", 500, NOV)));
    expect(code).toBe("webapp_quota_reached");
    expect(await jobCount()).toBe(1);
    // The API's regenerate draws on the wallet instead, which can pay.
    const jobId = await inTx((tx) => enqueueReportOnly(tx, wide, { userId, plan: "free" }, crypto.randomUUID(), "api", 500, NOV));
    expect((await reservation(jobId))?.channel).toBe("api");
  });
});

describe("admissions at once", () => {
  test("50 admissions sent together against a wallet for 5 admit exactly 5 (each takes the account's lock)", async () => {
    const wallet = { jobQueue: JOBS_TABLE_QUEUE, slots: { free: 100 }, billing: { ...deps.billing, allowances: { free: 25 } } };
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () =>
        inTx((tx) => admit(tx, wallet, who("api"), { kind: "processing", audioSeconds: null, report: false }, NOV, queue(tx, "api"))).then(
          () => "admitted",
          (error: ApiError) => error.code,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "admitted")).toHaveLength(5);
    expect(outcomes.filter((o) => o === "insufficient_balance")).toHaveLength(45);
    expect(await jobCount()).toBe(5);
  });
});

describe("the check before an upload", () => {
  test("API: a free slot and a balance that pays the hold", async () => {
    expect(await codeOf(() => inTx((q) => admitBeforeUpload(q, deps, who("api"), NOV)))).toBeNull();
    await checkBeforeUpload(database.conn, deps, who("api"), NOV);
    expect(await codeOf(() => inTx((q) => admitBeforeUpload(q, { ...deps, billing: { ...deps.billing, allowances: { free: 0 } } }, who("api"), NOV)))).toBe("insufficient_balance");
    await inTx((tx) => queue(tx, "api")());
    expect(await codeOf(() => inTx((q) => admitBeforeUpload(q, deps, who("api"), NOV)))).toBe("parallel_processing_limit");
    await expect(checkBeforeUpload(database.conn, deps, who("api"), NOV)).rejects.toThrow(ApiError);
  });

  test("web app: minutes left this month; a draft being opened needs no slot", async () => {
    await inTx((tx) => queue(tx, "webapp")());
    expect(await codeOf(() => inTx((q) => admitBeforeUpload(q, deps, who("webapp"), NOV)))).toBe("parallel_processing_limit");
    expect(await codeOf(() => inTx((q) => admitBeforeUpload(q, deps, who("webapp"), NOV, { slot: false })))).toBeNull();
    const full = { ...deps, billing: { ...deps.billing, webappQuotas: { audioMinutes: { free: 0 }, documents: { free: 1 } } } };
    expect(await codeOf(() => inTx((q) => admitBeforeUpload(q, full, who("webapp"), NOV, { slot: false })))).toBe("webapp_quota_reached");
    // Nothing is reserved by the check.
    expect(await inTx((q) => q.select().from(usageReservations))).toEqual([]);
  });
});
