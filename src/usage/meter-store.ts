import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { emitEvent } from "../events/store.ts";
import { jobs } from "../jobs/table.ts";
import { randomId } from "../lib/ids.ts";
import { balanceOf } from "./balance-store.ts";
import { settleDebited } from "./reservation-store.ts";
import { ALERT_THRESHOLDS_PERCENT, periodOf, SPEND_CAP_THRESHOLDS_PERCENT, type BillingSettings } from "./settings.ts";
import { ledgerLines, usageAlerts, type OPERATIONS } from "./table.ts";

export interface Consumption {
  operation: (typeof OPERATIONS)[number];
  userId: string;
  plan: string;
  channel: "api" | "webapp";
  meetingId: string | null;
  jobId: string;
  audioSeconds?: number;
  promptTokens?: number;
  completionTokens?: number;
  model: string | null;
}

/** Cost in minor units, rounded up: never a fraction of a cent, never a float. */
export function costOf(settings: BillingSettings, c: Pick<Consumption, "operation" | "audioSeconds" | "promptTokens" | "completionTokens">): { unitRate: number; cost: number } {
  if (c.operation === "transcription") {
    const unitRate = settings.rates.transcriptionPerHour;
    return { unitRate, cost: Math.ceil(((c.audioSeconds ?? 0) * unitRate) / 3600) };
  }
  const unitRate = c.operation === "report" ? settings.rates.reportPerMillionTokens : settings.rates.documentPerMillionTokens;
  const tokens = (c.promptTokens ?? 0) + (c.completionTokens ?? 0);
  return { unitRate, cost: Math.ceil((tokens * unitRate) / 1_000_000) };
}

export type UsageMeter = (tx: Queryable, consumption: Consumption, now: number) => Promise<void>;

/** `meter` on a `Conn` (the transaction that stores the operation's result), for the job kinds' async hooks. */
export function debit(c: Conn, meter: UsageMeter, consumption: Consumption, now: number): Promise<void> {
  return run(c, (q) => meter(q, consumption, now));
}

/**
 * Debits one finished operation, inside the transaction that stores its result: the ledger line
 * (paid from the wallet first, then on demand up to the spend cap, the rest written off and
 * recorded as such), the job's usage, its reservation lowered by what was debited, and the
 * threshold alerts it crosses. API usage never counts against the web app's quota and the reverse
 * (channel). The account's lock first (`lockAccount`): the split between wallet and on-demand is
 * read, decided and written for the account at once, whichever node debits, so `tx` must be a
 * transaction's.
 */
export function usageMeter(settings: BillingSettings): UsageMeter {
  return async (tx, c, now) => {
    await lockAccount(tx, c.userId);
    const { unitRate, cost } = costOf(settings, c);
    const account = { userId: c.userId, plan: c.plan };
    const before = c.channel === "api" ? await balanceOf(tx, settings, account, now) : undefined;
    const paidWallet = before ? Math.min(cost, before.walletRemaining) : 0;
    const paidOnDemand = before ? Math.min(cost - paidWallet, before.onDemandRemaining) : 0;
    const writtenOff = before ? cost - paidWallet - paidOnDemand : 0;
    const id = randomId("led");
    await tx.insert(ledgerLines).values({
      id,
      userId: c.userId,
      period: periodOf(now),
      channel: c.channel,
      operation: c.operation,
      meetingId: c.meetingId,
      jobId: c.jobId,
      audioSeconds: Math.round(c.audioSeconds ?? 0),
      promptTokens: c.promptTokens ?? 0,
      completionTokens: c.completionTokens ?? 0,
      model: c.model,
      unitRate,
      currency: settings.currency,
      cost,
      paidWallet,
      paidOnDemand,
      writtenOff,
      createdAt: now,
    });
    await addToJobUsage(tx, c, { id, cost, currency: settings.currency });
    await settleDebited(tx, c.jobId, { cost, audioSeconds: c.audioSeconds ?? 0 }, now);
    if (before) await announceThresholds(tx, settings, account, now);
  };
}

/** job.usage: what the job consumed so far, summed over its ledger lines. */
async function addToJobUsage(tx: Queryable, c: Consumption, line: { id: string; cost: number; currency: string }): Promise<void> {
  const [row] = await tx.select({ usage: jobs.usage }).from(jobs).where(eq(jobs.id, c.jobId)).limit(1);
  if (!row) return;
  const usage = (row.usage ?? {}) as {
    audio_seconds?: number;
    prompt_tokens?: number;
    completion_tokens?: number;
    models?: string[];
    cost?: number;
    currency?: string;
    ledger_line_ids?: string[];
  };
  const next = {
    audio_seconds: (usage.audio_seconds ?? 0) + Math.round(c.audioSeconds ?? 0),
    prompt_tokens: (usage.prompt_tokens ?? 0) + (c.promptTokens ?? 0),
    completion_tokens: (usage.completion_tokens ?? 0) + (c.completionTokens ?? 0),
    models: [...new Set([...(usage.models ?? []), ...(c.model ? [c.model] : [])])],
    cost: (usage.cost ?? 0) + line.cost,
    currency: line.currency,
    ledger_line_ids: [...(usage.ledger_line_ids ?? []), line.id],
  };
  await tx.update(jobs).set({ usage: next }).where(eq(jobs.id, c.jobId));
}

/** usage.threshold_reached at 50, 80 and 100 % of the wallet and 80 and 100 % of the spend cap, each once per month. */
async function announceThresholds(tx: Queryable, settings: BillingSettings, account: { userId: string; plan: string }, now: number): Promise<void> {
  const after = await balanceOf(tx, settings, account, now);
  const wallet = after.allowance + after.credits;
  const crossed: { alert: string; kind: "wallet" | "spend_cap"; percent: number; used: number; limit: number }[] = [];
  if (wallet > 0) {
    for (const percent of ALERT_THRESHOLDS_PERCENT) {
      if (after.walletUsed * 100 >= wallet * percent) crossed.push({ alert: `wallet_${percent}`, kind: "wallet", percent, used: after.walletUsed, limit: wallet });
    }
  }
  if (after.spendCap) {
    for (const percent of SPEND_CAP_THRESHOLDS_PERCENT) {
      if (after.onDemandUsed * 100 >= after.spendCap * percent) {
        crossed.push({ alert: `spend_cap_${percent}`, kind: "spend_cap", percent, used: after.onDemandUsed, limit: after.spendCap });
      }
    }
  }
  for (const c of crossed) {
    const inserted = await tx
      .insert(usageAlerts)
      .values({ userId: account.userId, period: after.period, alert: c.alert, createdAt: now })
      .onConflictDoNothing()
      .returning({ alert: usageAlerts.alert });
    if (!inserted.length) continue; // announced already this month
    await emitEvent(tx, {
      userId: account.userId,
      type: "usage.threshold_reached",
      now,
      object: {
        object: "usage_alert",
        period: after.period,
        kind: c.kind,
        threshold_percent: c.percent,
        used: c.used,
        limit: c.limit,
        currency: settings.currency,
      },
    });
  }
}
