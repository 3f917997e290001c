import { and, desc, eq, sql } from "drizzle-orm";
import { run, type Conn } from "../db/conn.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { paginateAsync, type Page } from "../http/pagination.ts";
import { balanceOf, type Balance } from "./balance-store.ts";
import { periodOf, type BillingSettings } from "./settings.ts";
import { ledgerLines } from "./table.ts";
import { webappUsage, type WebappUsage } from "./webapp-quota-store.ts";

/**
 * The `Conn` face of usage/ for its use cases (usage/app.ts). The readers and writers beside it
 * over a Queryable (balance-store.ts, reservation-store.ts, webapp-quota-store.ts, meter-store.ts,
 * admission-store.ts) are the ones other domains call inside their own transactions.
 */
export type LedgerRow = typeof ledgerLines.$inferSelect;

/** The API channel's operations of a month, summed. */
export interface MonthTotals {
  operations: number;
  audioSeconds: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

/** The account's API wallet and on-demand state for the month of `now`, and what its API operations of that month add up to. */
export function apiMonth(c: Conn, settings: BillingSettings, account: { userId: string; plan: string }, now: number): Promise<{ balance: Balance; totals: MonthTotals }> {
  return run(c, async (q) => {
    const balance = await balanceOf(q, settings, account, now);
    const [totals] = await q
      .select({
        operations: sql<number>`count(*)`,
        audioSeconds: sql<number>`coalesce(sum(${ledgerLines.audioSeconds}), 0)`,
        promptTokens: sql<number>`coalesce(sum(${ledgerLines.promptTokens}), 0)`,
        completionTokens: sql<number>`coalesce(sum(${ledgerLines.completionTokens}), 0)`,
        cost: sql<number>`coalesce(sum(${ledgerLines.cost}), 0)`,
      })
      .from(ledgerLines)
      .where(and(eq(ledgerLines.userId, account.userId), eq(ledgerLines.period, balance.period), eq(ledgerLines.channel, "api")));
    return { balance, totals: totals! };
  });
}

/** The account's ledger lines of one month (that of `now` unless named), newest first: the API's only, or both channels'. */
export function ledgerPage(
  c: Conn,
  userId: string,
  query: { limit: number; cursor?: string; period?: string },
  now: number,
  channels: "api" | "all",
): Promise<Page<LedgerRow>> {
  const period = query.period ?? periodOf(now);
  const channelFilter = channels === "api" ? eq(ledgerLines.channel, "api") : undefined;
  return run(c, (q) =>
    paginateAsync(
      query,
      async (after, take) =>
        await q
          .select()
          .from(ledgerLines)
          .where(and(eq(ledgerLines.userId, userId), eq(ledgerLines.period, period), channelFilter, newestFirstAfter(ledgerLines.createdAt, ledgerLines.id, after)))
          .orderBy(desc(ledgerLines.createdAt), desc(ledgerLines.id))
          .limit(take),
      (row) => [row.createdAt, row.id],
      (rows) => rows,
    ),
  );
}

/** The web app's use of its monthly quotas (webapp-quota.ts), over a Conn. */
export function readWebappUsage(c: Conn, settings: BillingSettings, account: { userId: string; plan: string }, now: number): Promise<WebappUsage> {
  return run(c, (q) => webappUsage(q, settings, account, now));
}
