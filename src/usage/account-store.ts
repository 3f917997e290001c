import { eq } from "drizzle-orm";
import { run, type Conn } from "../db/conn.ts";
import { periodOf } from "./settings.ts";
import { creditGrants, spendCaps } from "./table.ts";

/** Turns on-demand billing on with a monthly cap (minor units), or off with null. */
export function setSpendCap(c: Conn, userId: string, capMinor: number | null, now: number): Promise<void> {
  return run(c, async (db) => {
    if (capMinor === null) {
      await db.delete(spendCaps).where(eq(spendCaps.userId, userId));
      return;
    }
    await db
      .insert(spendCaps)
      .values({ userId, capMinor, updatedAt: now })
      .onConflictDoUpdate({ target: spendCaps.userId, set: { capMinor, updatedAt: now } });
  });
}

/** Credits added to the account's wallet for the month of `now`. */
export function grantCredits(c: Conn, userId: string, amountMinor: number, note: string | null, now: number): Promise<{ period: string }> {
  const period = periodOf(now);
  return run(c, async (db) => {
    await db.insert(creditGrants).values({ userId, period, amountMinor, note, createdAt: now });
    return { period };
  });
}
