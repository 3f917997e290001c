// Metering over a real SQLite file with the clock injected: a month's lifecycle (allowance, on
// demand, cap, write-off, 402s, rollover), thresholds announced once, costs in integer minor
// units, and a ledger the database itself keeps immutable.
import { describe, expect, test } from "bun:test";
import { createUser } from "../auth/user-store.ts";
import { ApiError } from "../errors/api-error.ts";
import { jobs } from "../jobs/table.ts";
import { freshDatabaseEachTest, type TempDatabase } from "../../test/support/database.ts";
import { grantCredits, setSpendCap } from "./account-store.ts";
import { admitJob, assertCanPay } from "./admission-store.ts";
import { balanceOf } from "./balance-store.ts";
import { expectedProcessing, expectedReport } from "./estimate.ts";
import { costOf, usageMeter, type Consumption } from "./meter-store.ts";
import { DEFAULT_BILLING, type BillingSettings } from "./settings.ts";

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

function consume(seconds: number, now: number, jobId = "job_x"): void {
  const c: Consumption = { operation: "transcription", userId, plan: "free", channel: "api", meetingId: crypto.randomUUID(), jobId, audioSeconds: seconds, model: "whisper" };
  database.db.transaction((tx) => meter(tx, c, now));
}

function refusal(now: number): string | null {
  try {
    assertCanPay(database.db, settings, account(), now);
    return null;
  } catch (error) {
    return (error as ApiError).code;
  }
}

function alerts(): { kind: string; threshold_percent: number; period: string }[] {
  const rows = database.db.$client.query("SELECT payload FROM events WHERE type = 'usage.threshold_reached' ORDER BY created_at, rowid").all() as { payload: string }[];
  return rows.map((r) => JSON.parse(r.payload).data.object);
}

freshDatabaseEachTest("usage", async (created) => {
  database = created;
  userId = (await createUser(created.db, { email: "dept@firm.example", plan: "free" })).id;
});

describe("costs", () => {
  test("integer minor units, rounded up, by operation", () => {
    expect(costOf(settings, { operation: "transcription", audioSeconds: 61 })).toEqual({ unitRate: 360, cost: 7 });
    expect(costOf(settings, { operation: "report", promptTokens: 1200, completionTokens: 300 })).toEqual({ unitRate: 1_000_000, cost: 1500 });
    const cheap = { ...settings, rates: { ...settings.rates, documentPerMillionTokens: 200 } };
    expect(costOf(cheap, { operation: "document", promptTokens: 1, completionTokens: 0 })).toEqual({ unitRate: 200, cost: 1 });
    expect(Number.isInteger(costOf(cheap, { operation: "document", promptTokens: 12_345, completionTokens: 678 }).cost)).toBe(true);
  });
});

describe("a month's lifecycle", () => {
  test("the wallet pays first, then 402 insufficient_balance without on-demand; credits top it up", async () => {
    consume(600, NOV); // 60 of 100
    expect(balanceOf(database.db, settings, account(), NOV)).toMatchObject({ walletUsed: 60, walletRemaining: 40 });
    expect(refusal(NOV)).toBeNull();
    consume(600, NOV); // 60 more: 40 from the wallet, 20 written off (no on-demand)
    const lines = database.db.$client.query("SELECT cost, paid_wallet, paid_on_demand, written_off FROM ledger_lines ORDER BY created_at, rowid").all();
    expect(lines).toEqual([
      { cost: 60, paid_wallet: 60, paid_on_demand: 0, written_off: 0 },
      { cost: 60, paid_wallet: 40, paid_on_demand: 0, written_off: 20 },
    ]);
    expect(refusal(NOV)).toBe("insufficient_balance");
    await grantCredits(database.conn, userId, 50, "year-end workshop", NOV);
    expect(balanceOf(database.db, settings, account(), NOV)).toMatchObject({ credits: 50, walletRemaining: 50 });
    expect(refusal(NOV)).toBeNull();
  });

  test("on demand up to the spend cap, then 402 spend_cap_reached; what runs past it is written off", async () => {
    await setSpendCap(database.conn, userId, 30, NOV);
    consume(1000, NOV); // 100: the wallet
    expect(refusal(NOV)).toBeNull(); // on-demand can pay
    consume(200, NOV); // 20 on demand
    consume(200, NOV); // 10 on demand, 10 written off
    expect(balanceOf(database.db, settings, account(), NOV)).toMatchObject({ walletRemaining: 0, onDemandUsed: 30, onDemandRemaining: 0, writtenOff: 10 });
    expect(refusal(NOV)).toBe("spend_cap_reached");
  });

  test("a new month resets the wallet and on-demand spending, not the ledger", async () => {
    await setSpendCap(database.conn, userId, 30, NOV);
    consume(1400, NOV);
    expect(refusal(NOV)).toBe("spend_cap_reached");
    expect(balanceOf(database.db, settings, account(), DEC)).toMatchObject({ period: "2026-12", walletUsed: 0, walletRemaining: 100, onDemandUsed: 0 });
    expect(refusal(DEC)).toBeNull();
    consume(100, DEC);
    const periods = database.db.$client.query("SELECT period, count(*) AS n FROM ledger_lines GROUP BY period ORDER BY period").all();
    expect(periods).toEqual([
      { period: "2026-11", n: 1 },
      { period: "2026-12", n: 1 },
    ]);
  });

  test("admitted operations reserve their expected cost: a wallet of 20 admits 2 of 8, and a debited or ended job releases it", () => {
    const admit = (i: number, cost: number): boolean => {
      try {
        database.db.transaction((tx) => {
          tx.insert(jobs).values({ id: `job_${i}`, userId, kind: "meeting_processing", status: "queued", stage: "queued", channel: "api", nextStep: "decode", createdAt: NOV }).run();
          admitJob(tx, settings, account(), { jobId: `job_${i}`, channel: "api" }, { cost, audioSeconds: 0, documents: 0 }, NOV);
        });
        return true;
      } catch (error) {
        expect((error as ApiError).code).toBe("insufficient_balance");
        return false;
      }
    };
    consume(800, NOV); // 80 of 100 used: 20 left
    const admitted = Array.from({ length: 5 }, (_, i) => admit(i, 8));
    expect(admitted).toEqual([true, true, false, false, false]);
    expect(balanceOf(database.db, settings, account(), NOV)).toMatchObject({ walletRemaining: 20, reserved: 16 });
    // job_0 transcribes 50 s (5 units): its line is debited and its reservation lowered by as much.
    consume(50, NOV, "job_0");
    expect(balanceOf(database.db, settings, account(), NOV)).toMatchObject({ walletRemaining: 15, reserved: 11 });
    // It ends (failed, canceled or completed alike): the rest is released in the same statement.
    database.db.$client.run("UPDATE jobs SET status = 'failed' WHERE id = 'job_0'");
    expect(balanceOf(database.db, settings, account(), NOV)).toMatchObject({ reserved: 8 });
    expect(database.db.$client.query("SELECT job_id FROM usage_reservations").all()).toEqual([{ job_id: "job_1" }]);
    expect(admit(9, 8)).toBe(false); // 15 - 8 = 7 left
    expect(admit(10, 7)).toBe(true);
  });

  test("estimates: audio by its duration at the rate, a report by its transcript, never under the hold", () => {
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
    consume(500, NOV); // 50 %
    consume(10, NOV); // 51 %: nothing new
    consume(300, NOV); // 81 %
    consume(1000, NOV); // wallet 100 %, on demand 81 of 50 → capped at 50: cap 80 % and 100 %
    consume(100, NOV); // all again: nothing new
    expect(alerts().map((a) => `${a.period} ${a.kind} ${a.threshold_percent}`)).toEqual([
      "2026-11 wallet 50",
      "2026-11 wallet 80",
      "2026-11 wallet 100",
      "2026-11 spend_cap 80",
      "2026-11 spend_cap 100",
    ]);
    consume(600, DEC);
    expect(alerts().at(-1)).toMatchObject({ period: "2026-12", kind: "wallet", threshold_percent: 50 });
    expect(alerts()).toHaveLength(6);
  });
});

describe("the ledger", () => {
  test("UPDATE and DELETE of a ledger line fail in the database itself", () => {
    consume(100, NOV);
    const sqlite = database.db.$client;
    expect(() => sqlite.run("UPDATE ledger_lines SET cost = 0")).toThrow("ledger lines are immutable");
    expect(() => sqlite.run("DELETE FROM ledger_lines")).toThrow("ledger lines are immutable");
    expect(sqlite.query("SELECT count(*) AS n, sum(cost) AS cost FROM ledger_lines").get()).toEqual({ n: 1, cost: 10 });
  });

  test("a line names ids, quantities, rates and money only; the job's usage sums its lines", () => {
    database.db.insert(jobs).values({ id: "job_m", userId, kind: "meeting_processing", status: "processing", stage: "transcribing", channel: "api", nextStep: "diarize", createdAt: NOV }).run();
    consume(65, NOV, "job_m");
    database.db.transaction((tx) =>
      meter(tx, { operation: "report", userId, plan: "free", channel: "api", meetingId: null, jobId: "job_m", promptTokens: 3, completionTokens: 2, model: "stories260K" }, NOV),
    );
    const columns = (database.db.$client.query("PRAGMA table_info(ledger_lines)").all() as { name: string }[]).map((c) => c.name);
    expect(columns.filter((c) => /title|text|markdown|name|transcript|metadata/.test(c))).toEqual([]);
    const usage = database.db.$client.query("SELECT usage FROM jobs WHERE id = 'job_m'").get() as { usage: string };
    expect(JSON.parse(usage.usage)).toMatchObject({ audio_seconds: 65, prompt_tokens: 3, completion_tokens: 2, models: ["whisper", "stories260K"], cost: 12, currency: "EUR" });
  });

  test("web app usage is recorded apart and never debits the API wallet", () => {
    database.db.transaction((tx) =>
      meter(tx, { operation: "transcription", userId, plan: "free", channel: "webapp", meetingId: null, jobId: "job_w", audioSeconds: 3600, model: "whisper" }, NOV),
    );
    expect(balanceOf(database.db, settings, account(), NOV)).toMatchObject({ walletUsed: 0, walletRemaining: 100 });
    expect(database.db.$client.query("SELECT channel, paid_wallet FROM ledger_lines").get()).toEqual({ channel: "webapp", paid_wallet: 0 });
  });
});
