import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { periodOf } from "./settings.ts";
import { creditGrants, spendCaps } from "./table.ts";

/** Turns on-demand billing on with a monthly cap (minor units), or off with null. */
export function setSpendCap(db: Queryable, userId: string, capMinor: number | null, now: number): void {
  if (capMinor === null) {
    db.delete(spendCaps).where(eq(spendCaps.userId, userId)).run();
    return;
  }
  db.insert(spendCaps)
    .values({ userId, capMinor, updatedAt: now })
    .onConflictDoUpdate({ target: spendCaps.userId, set: { capMinor, updatedAt: now } })
    .run();
}

/** Credits added to the account's wallet for the month of `now`. */
export function grantCredits(db: Queryable, userId: string, amountMinor: number, note: string | null, now: number): { period: string } {
  const period = periodOf(now);
  db.insert(creditGrants).values({ userId, period, amountMinor, note, createdAt: now }).run();
  return { period };
}
