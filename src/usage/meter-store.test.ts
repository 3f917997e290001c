// Metering over a real SQLite file with the clock injected: a month's lifecycle (allowance, on
// demand, cap, write-off, 402s, rollover), thresholds announced once, costs in integer minor
// units, and a ledger the database itself keeps immutable.
import { describe, expect, test } from "bun:test";
import { asc, count, eq, sql, type SQL } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { addUser } from "../auth/user-store.ts";
import type { Queryable } from "../db/client.ts";
import { run, runTx } from "../db/conn.ts";
import { exec } from "../db/sql.ts";
import { events } from "../events/table.ts";
import { ApiError } from "../errors/api-error.ts";
import { jobs } from "../jobs/table.ts";
import { freshDatabaseEachTest, type TempDatabase } from "../../test/support/database.ts";
import { grantCredits, setSpendCap } from "./account-store.ts";
import { admitJob, assertCanPay } from "./admission-store.ts";
import { balanceOf } from "./balance-store.ts";
import { expectedProcessing, expectedReport } from "./estimate.ts";
import { costOf, usageMeter, type Consumption } from "./meter-store.ts";
import { DEFAULT_BILLING, type BillingSettings } from "./settings.ts";
import { ledgerLines, usageReservations } from "./table.ts";

const settings: BillingSettings = {
  currency: "EUR",
  allowances: { free: 100, standard: 1000, pro: 5000 },
  // 360 per hour: one minor unit per 10 s of audio. 1,000,000 per million tokens: one per token.
  rates: { transcriptionPerHour: 360, reportPerMillionTokens: 1_000_000, documentPerMillionTokens: 1_000_000 },
  holdPerOperation: 5,
  estimates: { reportTokens: 3000 },
  webappQuotas: DEFAULT_BILLING.webappQuotas,
};
const NOV = Date.parse("2026-11-10T12:00:00Z");
const DEC = Date.parse("2026-12-01T00:00:05Z");
let database: TempDatabase;
let userId: string;
const account = () => ({ userId, plan: "free" });
const meter = usageMeter(settings);

/** `body` in a transaction of its own on the test's database. */
const inTx = <T>(body: (q: Queryable) => Promise<T> | T) => runTx(database.conn, body);
const balance = (now: number) => inTx((q) => balanceOf(q, settings, account(), now));

async function consume(seconds: number, now: number, jobId = "job_x"): Promise<void> {
  const c: Consumption = { operation: "transcription", userId, plan: "free", channel: "api", meetingId: crypto.randomUUID(), jobId, audioSeconds: seconds, model: "whisper" };
  await inTx((tx) => meter(tx, c, now));
}

async function refusal(now: number): Promise<string | null> {
  try {
    await inTx((q) => assertCanPay(q, settings, account(), now));
    return null;
  } catch (error) {
    return (error as ApiError).code;
  }
}

async function alerts(): Promise<{ kind: string; threshold_percent: number; period: string }[]> {
  const rows = await inTx((q) => q.select({ payload: events.payload, at: events.createdAt }).from(events).where(eq(events.type, "usage.threshold_reached")));
  // The alerts of one debit share its time: among them, the wallet's then the cap's, lowest threshold first (the order they are announced in).
  const announced = rows.map((r) => ({ at: r.at, alert: JSON.parse(r.payload).data.object as { kind: string; threshold_percent: number; period: string } }));
  announced.sort((a, b) => a.at - b.at || (a.alert.kind === b.alert.kind ? a.alert.threshold_percent - b.alert.threshold_percent : a.alert.kind === "wallet" ? -1 : 1));
  return announced.map((r) => r.alert);
}

/** The ledger's money columns, oldest line first. */
const ledgerMoney = () =>
  inTx((q) =>
    q
      .select({ cost: ledgerLines.cost, paid_wallet: ledgerLines.paidWallet, paid_on_demand: ledgerLines.paidOnDemand, written_off: ledgerLines.writtenOff })
      .from(ledgerLines)
      .orderBy(asc(ledgerLines.createdAt), asc(ledgerLines.id)),
  );

freshDatabaseEachTest("usage", async (created) => {
  database = created;
  userId = (await addUser(created.conn, { email: "dept@firm.example", plan: "free" })).id;
});

describe("costs", () => {
  test("integer minor units, rounded up, by operation", async () => {
    expect(costOf(settings, { operation: "transcription", audioSeconds: 61 })).toEqual({ unitRate: 360, cost: 7 });
    expect(costOf(settings, { operation: "report", promptTokens: 1200, completionTokens: 300 })).toEqual({ unitRate: 1_000_000, cost: 1500 });
    const cheap = { ...settings, rates: { ...settings.rates, documentPerMillionTokens: 200 } };
    expect(costOf(cheap, { operation: "document", promptTokens: 1, completionTokens: 0 })).toEqual({ unitRate: 200, cost: 1 });
    expect(Number.isInteger(costOf(cheap, { operation: "document", promptTokens: 12_345, completionTokens: 678 }).cost)).toBe(true);
  });
});

describe("a month's lifecycle", () => {
  test("the wallet pays first, then 402 insufficient_balance without on-demand; credits top it up", async () => {
    await consume(600, NOV); // 60 of 100
    expect(await balance(NOV)).toMatchObject({ walletUsed: 60, walletRemaining: 40 });
    expect(await refusal(NOV)).toBeNull();
    await consume(600, NOV + 1); // 60 more: 40 from the wallet, 20 written off (no on-demand)
    expect(await ledgerMoney()).toEqual([
      { cost: 60, paid_wallet: 60, paid_on_demand: 0, written_off: 0 },
      { cost: 60, paid_wallet: 40, paid_on_demand: 0, written_off: 20 },
    ]);
    expect(await refusal(NOV)).toBe("insufficient_balance");
    await grantCredits(database.conn, userId, 50, "year-end workshop", NOV);
    expect(await balance(NOV)).toMatchObject({ credits: 50, walletRemaining: 50 });
    expect(await refusal(NOV)).toBeNull();
  });

  test("on demand up to the spend cap, then 402 spend_cap_reached; what runs past it is written off", async () => {
    await setSpendCap(database.conn, userId, 30, NOV);
    await consume(1000, NOV); // 100: the wallet
    expect(await refusal(NOV)).toBeNull(); // on-demand can pay
    await consume(200, NOV); // 20 on demand
    await consume(200, NOV); // 10 on demand, 10 written off
    expect(await balance(NOV)).toMatchObject({ walletRemaining: 0, onDemandUsed: 30, onDemandRemaining: 0, writtenOff: 10 });
    expect(await refusal(NOV)).toBe("spend_cap_reached");
  });

  test("a new month resets the wallet and on-demand spending, not the ledger", async () => {
    await setSpendCap(database.conn, userId, 30, NOV);
    await consume(1400, NOV);
    expect(await refusal(NOV)).toBe("spend_cap_reached");
    expect(await balance(DEC)).toMatchObject({ period: "2026-12", walletUsed: 0, walletRemaining: 100, onDemandUsed: 0 });
    expect(await refusal(DEC)).toBeNull();
    await consume(100, DEC);
    const periods = await inTx((q) => q.select({ period: ledgerLines.period, n: count() }).from(ledgerLines).groupBy(ledgerLines.period).orderBy(ledgerLines.period));
    expect(periods).toEqual([
      { period: "2026-11", n: 1 },
      { period: "2026-12", n: 1 },
    ]);
  });

  test("admitted operations reserve their expected cost: a wallet of 20 admits 2 of 8, and a debited or ended job releases it", async () => {
    const admit = async (i: number, cost: number): Promise<boolean> => {
      try {
        await inTx(async (tx) => {
          await tx.insert(jobs).values({ id: `job_${i}`, userId, kind: "meeting_processing", status: "queued", stage: "queued", channel: "api", nextStep: "decode", createdAt: NOV });
          await admitJob(tx, settings, account(), { jobId: `job_${i}`, channel: "api" }, { cost, audioSeconds: 0, documents: 0 }, NOV);
        });
        return true;
      } catch (error) {
        expect((error as ApiError).code).toBe("insufficient_balance");
        return false;
      }
    };
    await consume(800, NOV); // 80 of 100 used: 20 left
    const admitted: boolean[] = [];
    for (let i = 0; i < 5; i += 1) admitted.push(await admit(i, 8));
    expect(admitted).toEqual([true, true, false, false, false]);
    expect(await balance(NOV)).toMatchObject({ walletRemaining: 20, reserved: 16 });
    // job_0 transcribes 50 s (5 units): its line is debited and its reservation lowered by as much.
    await consume(50, NOV, "job_0");
    expect(await balance(NOV)).toMatchObject({ walletRemaining: 15, reserved: 11 });
    // It ends (failed, canceled or completed alike): the rest is released in the same statement.
    await inTx((q) => q.update(jobs).set({ status: "failed" }).where(eq(jobs.id, "job_0")));
    expect(await balance(NOV)).toMatchObject({ reserved: 8 });
    expect(await inTx((q) => q.select({ job_id: usageReservations.jobId }).from(usageReservations))).toEqual([{ job_id: "job_1" }]);
    expect(await admit(9, 8)).toBe(false); // 15 - 8 = 7 left
    expect(await admit(10, 7)).toBe(true);
  });

  test("estimates: audio by its duration at the rate, a report by its transcript, never under the hold", async () => {
    const hour = expectedProcessing(settings, { audioSeconds: 3600, report: false });
    expect(hour).toEqual({ cost: 360, audioSeconds: 3600, documents: 0 });
    const withReport = expectedProcessing(settings, { audioSeconds: 3600, report: true });
    // 3600 s × 4 tokens + 3000 tokens of instructions and answer, at one unit per token.
    expect(withReport.cost).toBe(360 + 3600 * 4 + 3000);
    expect(expectedProcessing(settings, { audioSeconds: null, report: false }).cost).toBe(settings.holdPerOperation);
    expect(expectedReport(settings, 300)).toEqual({ cost: 100 + 3000, audioSeconds: 0, documents: 1 });
  });
});

describe("threshold alerts", () => {
  test("50, 80 and 100 % of the wallet and 80 and 100 % of the cap, each once a month, again the next month", async () => {
    await setSpendCap(database.conn, userId, 50, NOV);
    await consume(500, NOV); // 50 %
    await consume(10, NOV); // 51 %: nothing new
    await consume(300, NOV); // 81 %
    await consume(1000, NOV); // wallet 100 %, on demand 81 of 50 → capped at 50: cap 80 % and 100 %
    await consume(100, NOV); // all again: nothing new
    expect((await alerts()).map((a) => `${a.period} ${a.kind} ${a.threshold_percent}`)).toEqual([
      "2026-11 wallet 50",
      "2026-11 wallet 80",
      "2026-11 wallet 100",
      "2026-11 spend_cap 80",
      "2026-11 spend_cap 100",
    ]);
    await consume(600, DEC);
    expect((await alerts()).at(-1)).toMatchObject({ period: "2026-12", kind: "wallet", threshold_percent: 50 });
    expect(await alerts()).toHaveLength(6);
  });
});

describe("the ledger", () => {
  test("UPDATE and DELETE of a ledger line fail in the database itself", async () => {
    await consume(100, NOV);
    // drizzle wraps the database's error: the trigger's message is its cause's.
    const refused = (statement: SQL) => run(database.conn, (q) => exec(q, statement)).then(() => "done", (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message));
    expect(await refused(sql`UPDATE ledger_lines SET cost = 0`)).toContain("ledger lines are immutable");
    expect(await refused(sql`DELETE FROM ledger_lines`)).toContain("ledger lines are immutable");
    expect(await ledgerMoney()).toEqual([{ cost: 10, paid_wallet: 10, paid_on_demand: 0, written_off: 0 }]);
  });

  test("a line names ids, quantities, rates and money only; the job's usage sums its lines", async () => {
    await inTx((q) => q.insert(jobs).values({ id: "job_m", userId, kind: "meeting_processing", status: "processing", stage: "transcribing", channel: "api", nextStep: "diarize", createdAt: NOV }));
    await consume(65, NOV, "job_m");
    await inTx((tx) =>
      meter(tx, { operation: "report", userId, plan: "free", channel: "api", meetingId: null, jobId: "job_m", promptTokens: 3, completionTokens: 2, model: "stories260K" }, NOV),
    );
    const columns = getTableConfig(ledgerLines).columns.map((c) => c.name);
    expect(columns.filter((c) => /title|text|markdown|name|transcript|metadata/.test(c))).toEqual([]);
    const [job] = await inTx((q) => q.select({ usage: jobs.usage }).from(jobs).where(eq(jobs.id, "job_m")));
    expect(job!.usage).toMatchObject({ audio_seconds: 65, prompt_tokens: 3, completion_tokens: 2, models: ["whisper", "stories260K"], cost: 12, currency: "EUR" });
  });

  test("web app usage is recorded apart and never debits the API wallet", async () => {
    await inTx((tx) =>
      meter(tx, { operation: "transcription", userId, plan: "free", channel: "webapp", meetingId: null, jobId: "job_w", audioSeconds: 3600, model: "whisper" }, NOV),
    );
    expect(await balance(NOV)).toMatchObject({ walletUsed: 0, walletRemaining: 100 });
    expect(await inTx((q) => q.select({ channel: ledgerLines.channel, paid_wallet: ledgerLines.paidWallet }).from(ledgerLines))).toEqual([{ channel: "webapp", paid_wallet: 0 }]);
  });
});
