import { and, asc, desc, eq, gte, lte, sql, sum } from "drizzle-orm";
import { users } from "../auth/table.ts";
import { run, type Conn } from "../db/conn.ts";
import { ledgerLines } from "../usage/table.ts";

/** One account's metered use in one UTC month, both channels, from the immutable ledger. */
export interface MonthlyUse {
  userId: string;
  /** The account's email; deleted accounts keep their ledger lines under `deleted:<id>`. */
  email: string;
  period: string;
  audioSeconds: number;
  reports: number;
  documents: number;
  /** Minor units, every line's cost (wallet, on demand and written off alike). */
  amount: number;
}

/**
 * The firm's use per account and month between two periods (YYYY-MM, inclusive), newest month
 * first, then by email; at most `bound` rows. Read from ledger_lines alone: what the accounts were
 * debited, nothing that a job still holds in reserve.
 */
export function monthlyUse(c: Conn, from: string, to: string, bound: number): Promise<MonthlyUse[]> {
  return run(c, async (q) => {
    const found = await q
      .select({
        userId: ledgerLines.userId,
        email: users.email,
        period: ledgerLines.period,
        audioSeconds: sum(sql`CASE WHEN ${ledgerLines.operation} = 'transcription' THEN ${ledgerLines.audioSeconds} ELSE 0 END`),
        reports: sum(sql`CASE WHEN ${ledgerLines.operation} = 'report' THEN 1 ELSE 0 END`),
        documents: sum(sql`CASE WHEN ${ledgerLines.operation} = 'document' THEN 1 ELSE 0 END`),
        amount: sum(ledgerLines.cost),
      })
      .from(ledgerLines)
      .innerJoin(users, eq(users.id, ledgerLines.userId))
      .where(and(gte(ledgerLines.period, from), lte(ledgerLines.period, to)))
      .groupBy(ledgerLines.userId, users.email, ledgerLines.period)
      .orderBy(desc(ledgerLines.period), asc(users.email))
      .limit(bound);
    // sum() reads back as a string on both drivers (numeric on PostgreSQL).
    return found.map((r) => ({
      userId: r.userId,
      email: r.email,
      period: r.period,
      audioSeconds: Number(r.audioSeconds ?? 0),
      reports: Number(r.reports ?? 0),
      documents: Number(r.documents ?? 0),
      amount: Number(r.amount ?? 0),
    }));
  });
}
