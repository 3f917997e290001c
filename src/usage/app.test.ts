// Usage's use cases against a real store: the API month (wallet, on-demand, totals), the ledger
// (the API's lines through the API, both channels' in the web app, pages), the web app's quotas.
import { JOBS_TABLE_QUEUE } from "../jobs/pg-boss-store.ts";
import { meetingProcessingJob } from "../meetings/processing-job.ts";
import { afterEach, beforeEach, expect, test } from "bun:test";
import type { Actor } from "../auth/actor.ts";
import { addUser } from "../auth/user-store.ts";
import { runTx } from "../db/conn.ts";
import { testActor } from "../../test/support/actor.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { grantCredits, setSpendCap } from "./account-store.ts";
import { usageAdminApp, usageApp } from "./app.ts";
import { usageMeter, type Consumption } from "./meter-store.ts";
import { renderLedgerLine, renderUsage } from "./render.ts";
import { reserve } from "./reservation-store.ts";
import { enqueueJob } from "../jobs/queue-store.ts";
import { DEFAULT_BILLING, type BillingSettings } from "./settings.ts";

const billing: BillingSettings = {
  ...DEFAULT_BILLING,
  allowances: { free: 100 },
  // 360 per hour: one minor unit per 10 s of audio.
  rates: { transcriptionPerHour: 360, reportPerMillionTokens: 1_000_000, documentPerMillionTokens: 1_000_000 },
  webappQuotas: { audioMinutes: { free: 10 }, documents: { free: 3 } },
};
const NOV = Date.parse("2026-11-10T12:00:00Z");
let database: TempDatabase;
let userId: string;
let now = NOV;
const app = () => usageApp({ conn: database.conn, clock: { now: () => now }, billing });
const actor = (channel: "api" | "webapp"): Actor => testActor(userId, channel);

async function consume(c: Partial<Consumption> & Pick<Consumption, "operation" | "channel">, at: number): Promise<void> {
  const meter = usageMeter(billing);
  await runTx(database.conn, (tx) => meter(tx, { userId, plan: "free", meetingId: null, jobId: "job_x", model: "m", ...c }, at));
}

/** A job in flight on `channel` holding `expected`. */
async function hold(channel: "api" | "webapp", expected: { cost: number; audioSeconds: number; documents: number }): Promise<void> {
  await runTx(database.conn, async (tx) => {
    const jobId = await enqueueJob(tx, { userId, kind: meetingProcessingJob, firstStep: "decode", now: NOV, channel, payload: {} }, JOBS_TABLE_QUEUE);
    await reserve(tx, { jobId, userId, channel }, expected, NOV);
  });
}

beforeEach(async () => {
  database = tempDatabase("usage-app");
  userId = (await addUser(database.conn, { email: "dept@firm.example", plan: "free" })).id;
  now = NOV;
});
afterEach(() => database.remove());

test("summary: the API month's wallet, credits, on-demand cap, what is reserved and the totals; the web app's lines left out", async () => {
  await grantCredits(database.conn, userId, 50, "top-up", NOV);
  await setSpendCap(database.conn, userId, 1000, NOV);
  await consume({ operation: "transcription", channel: "api", audioSeconds: 600 }, NOV); // 60
  await consume({ operation: "report", channel: "api", promptTokens: 100, completionTokens: 20 }, NOV + 1); // 120: 90 wallet, 30 on demand
  await consume({ operation: "transcription", channel: "webapp", audioSeconds: 600 }, NOV + 2);
  await hold("api", { cost: 7, audioSeconds: 0, documents: 0 });

  const summary = await app().summary(actor("api"));
  expect(summary.plan).toBe("free");
  expect(summary.balance).toMatchObject({ period: "2026-11", allowance: 100, credits: 50, walletUsed: 150, walletRemaining: 0, spendCap: 1000, onDemandUsed: 30, reserved: 7 });
  expect(summary.totals).toEqual({ operations: 2, audioSeconds: 600, promptTokens: 100, completionTokens: 20, cost: 180 });
  const body = renderUsage(billing, summary.plan, summary);
  expect(body).toMatchObject({ object: "usage", period_start: "2026-11-01T00:00:00.000Z", wallet: { used: 150, reserved: 7 }, on_demand: { enabled: true, used: 30, remaining: 970 } });
});

test("ledger: newest first, the API's lines only through the API, both channels in the web app, in pages, another month by name", async () => {
  await consume({ operation: "transcription", channel: "api", audioSeconds: 60 }, NOV);
  await consume({ operation: "transcription", channel: "webapp", audioSeconds: 60 }, NOV + 1);
  await consume({ operation: "report", channel: "api", promptTokens: 10, completionTokens: 0 }, NOV + 2);
  await consume({ operation: "transcription", channel: "api", audioSeconds: 60 }, Date.parse("2026-10-05T00:00:00Z"));

  const api = await app().ledger(actor("api"), { limit: 10 });
  expect(api.data.map((r) => [r.operation, r.channel])).toEqual([
    ["report", "api"],
    ["transcription", "api"],
  ]);
  expect(renderLedgerLine(api.data[0]!)).toMatchObject({ object: "ledger_line", payment: "wallet", unit: "per_million_tokens" });
  const web = await app().ledger(actor("webapp"), { limit: 2 });
  expect(web.data.map((r) => r.channel)).toEqual(["api", "webapp"]);
  expect(web.has_more).toBe(true);
  const next = await app().ledger(actor("webapp"), { limit: 2, cursor: web.next_cursor! });
  expect(next.data.map((r) => r.createdAt)).toEqual([NOV]);
  expect(next.has_more).toBe(false);
  expect((await app().ledger(actor("api"), { limit: 10, period: "2026-10" })).data).toHaveLength(1);
});

test("webappQuotas: minutes and documents used this month, held by work in flight, and the plan's quotas", async () => {
  await consume({ operation: "transcription", channel: "webapp", audioSeconds: 90 }, NOV);
  await consume({ operation: "document", channel: "webapp", promptTokens: 10, completionTokens: 0 }, NOV + 1);
  await consume({ operation: "transcription", channel: "api", audioSeconds: 600 }, NOV + 2);
  await hold("webapp", { cost: 0, audioSeconds: 120, documents: 1 });
  const quotas = await app().webappQuotas(actor("webapp"));
  expect(quotas.period).toBe("2026-11");
  expect(quotas.audioMinutes).toEqual({ used: 2, reserved: 2, quota: 10 });
  expect(quotas.documents).toEqual({ used: 1, reserved: 1, quota: 3 });
});

test("admin: a spend cap set and removed, credits granted for this month, as the summary then shows them", async () => {
  const admin = usageAdminApp({ conn: database.conn, clock: { now: () => now } });
  await admin.setSpendCap(userId, 400);
  expect(await admin.grantCredits(userId, 25, "goodwill")).toEqual({ period: "2026-11" });
  expect((await app().summary(actor("api"))).balance).toMatchObject({ spendCap: 400, credits: 25, onDemandRemaining: 400 });
  await admin.setSpendCap(userId, null);
  expect((await app().summary(actor("api"))).balance.spendCap).toBeNull();
});
