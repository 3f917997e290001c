import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { jobs } from "../jobs/table.ts";
import { periodOf, type BillingSettings } from "./settings.ts";
import { ledgerLines } from "./table.ts";

export interface WebappUsage {
  period: string;
  audioMinutes: { used: number; quota: number };
  documents: { used: number; quota: number };
}

/**
 * The web app's use of its monthly quotas, from the ledger's webapp lines (immutable, so a
 * deleted meeting's minutes and a deleted document still count) plus the document jobs still
 * queued or running (so documents asked for at once cannot all slip under the quota).
 */
export function webappUsage(db: Queryable, settings: BillingSettings, account: { userId: string; plan: string }, now: number): WebappUsage {
  const period = periodOf(now);
  const lines = db
    .select({
      audioSeconds: sql<number>`coalesce(sum(case when ${ledgerLines.operation} = 'transcription' then ${ledgerLines.audioSeconds} else 0 end), 0)`,
      documents: sql<number>`coalesce(sum(case when ${ledgerLines.operation} = 'document' then 1 else 0 end), 0)`,
    })
    .from(ledgerLines)
    .where(and(eq(ledgerLines.userId, account.userId), eq(ledgerLines.period, period), eq(ledgerLines.channel, "webapp")))
    .get()!;
  const writing =
    db
      .select({ n: count() })
      .from(jobs)
      .where(and(eq(jobs.userId, account.userId), eq(jobs.source, "webapp"), eq(jobs.kind, "document_generation"), inArray(jobs.status, ["queued", "processing"])))
      .get()?.n ?? 0;
  const { audioMinutes, documents } = settings.webappQuotas;
  return {
    period,
    audioMinutes: { used: Math.ceil(lines.audioSeconds / 60), quota: audioMinutes[account.plan] ?? 0 },
    documents: { used: lines.documents + writing, quota: documents[account.plan] ?? 0 },
  };
}

/**
 * Refuses web app work once this month's quota of its kind is used up (402 webapp_quota_reached).
 * Audio is admitted while minutes remain (a recording's length is known only once decoded), so
 * the last meeting of a month may run past the quota; documents are counted one by one.
 */
export function assertWebappQuota(db: Queryable, settings: BillingSettings, account: { userId: string; plan: string }, now: number, kind: "audio" | "document"): void {
  const usage = webappUsage(db, settings, account, now);
  const { used, quota } = kind === "audio" ? usage.audioMinutes : usage.documents;
  if (used < quota) return;
  const what = kind === "audio" ? `${quota} minutes of audio` : `${quota} documents`;
  throw new ApiError("webapp_quota_reached", `This month's web app quota of ${what} is used up. Nothing was created; it renews on the first of next month.`);
}
