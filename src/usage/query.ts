import { and, desc, eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { paginate } from "../http/pagination.ts";
import { toRfc3339 } from "../lib/time.ts";
import { balanceOf } from "./balance.ts";
import { ALERT_THRESHOLDS_PERCENT, periodBounds, periodOf, SPEND_CAP_THRESHOLDS_PERCENT, type BillingSettings } from "./settings.ts";
import { ledgerLines } from "./table.ts";

type LedgerRow = typeof ledgerLines.$inferSelect;

/** GET /v1/usage: the month of `now` (UTC). Amounts are integers in minor units of `currency`. */
export function renderUsage(db: Queryable, settings: BillingSettings, account: { userId: string; plan: string }, now: number) {
  const balance = balanceOf(db, settings, account, now);
  const { start, end } = periodBounds(balance.period);
  const totals = db
    .select({
      operations: sql<number>`count(*)`,
      audioSeconds: sql<number>`coalesce(sum(${ledgerLines.audioSeconds}), 0)`,
      promptTokens: sql<number>`coalesce(sum(${ledgerLines.promptTokens}), 0)`,
      completionTokens: sql<number>`coalesce(sum(${ledgerLines.completionTokens}), 0)`,
      cost: sql<number>`coalesce(sum(${ledgerLines.cost}), 0)`,
    })
    .from(ledgerLines)
    .where(and(eq(ledgerLines.userId, account.userId), eq(ledgerLines.period, balance.period), eq(ledgerLines.channel, "api")))
    .get()!;
  return {
    object: "usage" as const,
    period: balance.period,
    period_start: toRfc3339(start),
    period_end: toRfc3339(end),
    currency: settings.currency,
    plan: account.plan,
    wallet: {
      allowance: balance.allowance,
      credits: balance.credits,
      used: balance.walletUsed,
      remaining: balance.walletRemaining,
      // Held by the account's operations still queued or running, until each ends (not yet used).
      reserved: balance.reserved,
    },
    on_demand: {
      enabled: balance.spendCap !== null,
      spend_cap: balance.spendCap,
      used: balance.onDemandUsed,
      remaining: balance.spendCap === null ? null : balance.onDemandRemaining,
      written_off: balance.writtenOff,
    },
    totals: {
      operations: totals.operations,
      audio_seconds: totals.audioSeconds,
      prompt_tokens: totals.promptTokens,
      completion_tokens: totals.completionTokens,
      tokens: totals.promptTokens + totals.completionTokens,
      cost: totals.cost,
    },
    alert_thresholds_percent: [...ALERT_THRESHOLDS_PERCENT],
    spend_cap_alert_thresholds_percent: [...SPEND_CAP_THRESHOLDS_PERCENT],
    rates: {
      transcription_per_hour: settings.rates.transcriptionPerHour,
      report_per_million_tokens: settings.rates.reportPerMillionTokens,
      document_per_million_tokens: settings.rates.documentPerMillionTokens,
    },
  };
}

export function renderLedgerLine(row: LedgerRow) {
  return {
    id: row.id,
    object: "ledger_line" as const,
    period: row.period,
    operation: row.operation,
    meeting_id: row.meetingId,
    job_id: row.jobId,
    quantities: { audio_seconds: row.audioSeconds, prompt_tokens: row.promptTokens, completion_tokens: row.completionTokens },
    model: row.model,
    unit_rate: row.unitRate,
    unit: row.operation === "transcription" ? "per_hour_of_audio" : "per_million_tokens",
    currency: row.currency,
    cost: row.cost,
    paid: { wallet: row.paidWallet, on_demand: row.paidOnDemand, written_off: row.writtenOff },
    payment: paymentOf(row),
    created_at: toRfc3339(row.createdAt),
  };
}

/** How the line was paid: one way, or mixed when the cost was split. */
function paymentOf(row: LedgerRow): "wallet" | "on_demand" | "written_off" | "mixed" | "free" {
  const parts = [row.paidWallet && "wallet", row.paidOnDemand && "on_demand", row.writtenOff && "written_off"].filter(Boolean) as ("wallet" | "on_demand" | "written_off")[];
  if (parts.length === 0) return "free";
  return parts.length === 1 ? parts[0]! : "mixed";
}

/** The account's ledger lines of one month, newest first: the API's (GET /v1/usage/ledger), or both channels' (the web app's usage page). */
export function listLedger(db: Queryable, userId: string, query: { limit: number; cursor?: string; period?: string }, now: number, channels: "api" | "all" = "api") {
  const period = query.period ?? periodOf(now);
  const channelFilter = channels === "api" ? eq(ledgerLines.channel, "api") : undefined;
  return paginate(
    query,
    (after, take) =>
      db
        .select()
        .from(ledgerLines)
        .where(and(eq(ledgerLines.userId, userId), eq(ledgerLines.period, period), channelFilter, newestFirstAfter(ledgerLines.createdAt, ledgerLines.id, after)))
        .orderBy(desc(ledgerLines.createdAt), desc(ledgerLines.id))
        .limit(take)
        .all(),
    (row) => [row.createdAt, row.id],
    (rows) => rows.map((row) => (channels === "api" ? renderLedgerLine(row) : { ...renderLedgerLine(row), channel: row.channel })),
  );
}
