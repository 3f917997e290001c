import { toRfc3339 } from "../lib/time.ts";
import type { Balance } from "./balance-store.ts";
import { ALERT_THRESHOLDS_PERCENT, periodBounds, SPEND_CAP_THRESHOLDS_PERCENT, type BillingSettings } from "./settings.ts";
import type { LedgerRow, MonthTotals } from "./store.ts";

/** GET /v1/usage, and the web app's usage page: the month of the balance (UTC). Amounts are integers in minor units of `currency`. */
export function renderUsage(settings: BillingSettings, plan: string, month: { balance: Balance; totals: MonthTotals }) {
  const { balance, totals } = month;
  const { start, end } = periodBounds(balance.period);
  return {
    object: "usage" as const,
    period: balance.period,
    period_start: toRfc3339(start),
    period_end: toRfc3339(end),
    currency: settings.currency,
    plan,
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

/** A ledger line as the web app's usage page lists it: with the channel it was metered on. */
export function renderLedgerLineWithChannel(row: LedgerRow) {
  return { ...renderLedgerLine(row), channel: row.channel };
}

export type Usage = ReturnType<typeof renderUsage>;
export type LedgerLine = ReturnType<typeof renderLedgerLine>;
