import { and, eq, sql, sum } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { reservedBy } from "./reservation-store.ts";
import { periodOf, type BillingSettings } from "./settings.ts";
import { creditGrants, ledgerLines, spendCaps } from "./table.ts";

export interface Balance {
  period: string;
  allowance: number;
  credits: number;
  walletUsed: number;
  walletRemaining: number;
  /** null: no on-demand billing for this account. */
  spendCap: number | null;
  onDemandUsed: number;
  onDemandRemaining: number;
  writtenOff: number;
  /** Minor units the account's jobs still queued or running have reserved (usage/reservation-store.ts). */
  reserved: number;
}

/** The account's API wallet and on-demand state for the month of `now`; `exceptJobId`'s reservation left out. */
export async function balanceOf(db: Queryable, settings: BillingSettings, account: { userId: string; plan: string }, now: number, exceptJobId?: string): Promise<Balance> {
  const period = periodOf(now);
  const allowance = settings.allowances[account.plan] ?? 0;
  const [granted] = await db
    .select({ total: sum(creditGrants.amountMinor) })
    .from(creditGrants)
    .where(and(eq(creditGrants.userId, account.userId), eq(creditGrants.period, period)));
  const credits = Number(granted?.total ?? 0);
  const spent = (
    await db
      .select({
        wallet: sql<number>`coalesce(sum(${ledgerLines.paidWallet}), 0)`,
        onDemand: sql<number>`coalesce(sum(${ledgerLines.paidOnDemand}), 0)`,
        writtenOff: sql<number>`coalesce(sum(${ledgerLines.writtenOff}), 0)`,
      })
      .from(ledgerLines)
      .where(and(eq(ledgerLines.userId, account.userId), eq(ledgerLines.period, period), eq(ledgerLines.channel, "api")))
  )[0]!;
  const [capRow] = await db.select({ capMinor: spendCaps.capMinor }).from(spendCaps).where(eq(spendCaps.userId, account.userId)).limit(1);
  const cap = capRow?.capMinor ?? null;
  const wallet = allowance + credits;
  return {
    period,
    allowance,
    credits,
    walletUsed: spent.wallet,
    walletRemaining: Math.max(0, wallet - spent.wallet),
    spendCap: cap,
    onDemandUsed: spent.onDemand,
    onDemandRemaining: cap === null ? 0 : Math.max(0, cap - spent.onDemand),
    writtenOff: spent.writtenOff,
    reserved: (await reservedBy(db, account.userId, "api", exceptJobId)).amountMinor,
  };
}
