import { and, eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { jobs } from "../jobs/table.ts";
import { reservedBy, type Expected } from "./reservation-store.ts";
import { periodOf, type BillingSettings } from "./settings.ts";
import { ledgerLines } from "./table.ts";

export interface WebappUsage {
  period: string;
  /** used: debited this month; reserved: held by the web app's jobs still queued or running. */
  audioMinutes: { used: number; reserved: number; quota: number };
  documents: { used: number; reserved: number; quota: number };
}

/**
 * The web app's use of its monthly quotas, from the ledger's webapp lines (immutable, so a
 * deleted meeting's minutes and a deleted document still count), beside what its jobs still in
 * flight reserve (usage/reservation-store.ts), so recordings or documents sent at once cannot all slip
 * under the quota. A report written on demand (again, or from a pasted transcript) counts as a document.
 */
export async function webappUsage(
  db: Queryable,
  settings: BillingSettings,
  account: { userId: string; plan: string },
  now: number,
  exceptJobId?: string,
): Promise<WebappUsage & { audioSeconds: { used: number; reserved: number } }> {
  const period = periodOf(now);
  const ofMonth = and(eq(ledgerLines.userId, account.userId), eq(ledgerLines.period, period), eq(ledgerLines.channel, "webapp"));
  const lines = (
    await db
      .select({
        audioSeconds: sql<number>`coalesce(sum(case when ${ledgerLines.operation} = 'transcription' then ${ledgerLines.audioSeconds} else 0 end), 0)`,
        documents: sql<number>`coalesce(sum(case when ${ledgerLines.operation} = 'document' then 1 else 0 end), 0)`,
      })
      .from(ledgerLines)
      .where(ofMonth)
  )[0]!;
  // A report line counts as a document when its job wrote the report on demand (payload.reportOnly),
  // read here rather than with json_extract / ->> so one query serves both dialects; a month holds few.
  const reportJobs = await db
    .select({ payload: jobs.payload })
    .from(ledgerLines)
    .innerJoin(jobs, eq(jobs.id, ledgerLines.jobId))
    .where(and(ofMonth, eq(ledgerLines.operation, "report")));
  const reportsOnDemand = reportJobs.filter((row) => (row.payload as { reportOnly?: unknown }).reportOnly === true).length;
  const reserved = await reservedBy(db, account.userId, "webapp", exceptJobId);
  const { audioMinutes, documents } = settings.webappQuotas;
  return {
    period,
    audioSeconds: { used: lines.audioSeconds, reserved: reserved.audioSeconds },
    audioMinutes: { used: Math.ceil(lines.audioSeconds / 60), reserved: Math.ceil(reserved.audioSeconds / 60), quota: audioMinutes[account.plan] ?? 0 },
    documents: { used: lines.documents + reportsOnDemand, reserved: reserved.documents, quota: documents[account.plan] ?? 0 },
  };
}

/**
 * Refuses web app work beyond this month's quotas (402 webapp_quota_reached), counting what its
 * jobs in flight reserve: the audio `expected` (its duration, when known before processing) must
 * fit in the minutes left, and each document or report written on demand in the documents left.
 * Without `expected` (before an upload arrives, a draft opened) some minutes must be left.
 * `exceptJobId`: a job being re-estimated does not count against itself.
 */
export async function assertWebappQuota(
  db: Queryable,
  settings: BillingSettings,
  account: { userId: string; plan: string },
  now: number,
  expected: Pick<Expected, "audioSeconds" | "documents"> | "audio" | "document",
  exceptJobId?: string,
): Promise<void> {
  const usage = await webappUsage(db, settings, account, now, exceptJobId);
  const want = expected === "audio" ? { audioSeconds: 0, documents: 0 } : expected === "document" ? { audioSeconds: 0, documents: 1 } : expected;
  // In whole minutes begun, as the usage page shows them: 29 s used of a 1-minute quota is 1 / 1.
  const heldMinutes = Math.ceil((usage.audioSeconds.used + usage.audioSeconds.reserved) / 60);
  const neededMinutes = Math.ceil((usage.audioSeconds.used + usage.audioSeconds.reserved + want.audioSeconds) / 60);
  const quota = usage.audioMinutes.quota;
  // Work that writes no document is audio: some minutes must be left, and the recording fit in them.
  if (want.documents === 0 && (heldMinutes >= quota || neededMinutes > quota)) {
    throw new ApiError(
      "webapp_quota_reached",
      heldMinutes >= quota
        ? `This month's web app quota of ${quota} minutes of audio is used up, counting the recordings in progress. Nothing was created; it renews on the first of next month.`
        : `This recording needs ${Math.ceil(want.audioSeconds / 60)} minutes of audio and this month's web app quota of ${quota} minutes has ${quota - heldMinutes} left, counting the recordings in progress. Nothing was created; it renews on the first of next month.`,
    );
  }
  if (want.documents > 0 && usage.documents.used + usage.documents.reserved + want.documents > usage.documents.quota) {
    throw new ApiError(
      "webapp_quota_reached",
      `This month's web app quota of ${usage.documents.quota} documents is used up, counting those being written and reports written again. Nothing was created; it renews on the first of next month.`,
    );
  }
}
