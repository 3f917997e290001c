import type { Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { balanceOf } from "./balance.ts";
import { reserve, type Expected } from "./reservations.ts";
import type { BillingSettings } from "./settings.ts";
import { assertWebappQuota } from "./webapp-quota.ts";

/**
 * Refuses an operation the account cannot pay for (SPEC 7 and 8): 402 insufficient_balance when
 * neither the wallet nor on-demand billing can pay `cost` (minor units) on top of what the
 * account's operations still running have reserved, 402 spend_cap_reached when on-demand billing
 * is on and its cap is what falls short. `exceptJobId`: a job whose own reservation is being
 * re-estimated does not count against itself. Runs inside the creating transaction (BEGIN
 * IMMEDIATE), so two requests are admitted one after the other.
 */
export function assertCanPay(
  tx: Queryable,
  settings: BillingSettings,
  account: { userId: string; plan: string },
  now: number,
  cost = settings.holdPerOperation,
  exceptJobId?: string,
): void {
  const balance = balanceOf(tx, settings, account, now, exceptJobId);
  const available = balance.walletRemaining + balance.onDemandRemaining - balance.reserved;
  if (available >= cost && available > 0) return;
  if (balance.spendCap !== null) {
    throw new ApiError(
      "spend_cap_reached",
      `This month's wallet is used up and on-demand billing reached its spend cap (${balance.spendCap} ${settings.currency} minor units), counting what the account's operations in progress hold. Nothing was created.`,
    );
  }
  throw new ApiError(
    "insufficient_balance",
    "This month's wallet cannot pay for this, counting what the account's operations in progress hold, and no on-demand billing is set up for the account. Nothing was created.",
  );
}

/**
 * Admits a job just queued in the caller's transaction: checks that the account can pay what the
 * job is expected to cost on its channel (the API wallet and on-demand billing, or the web app's
 * own monthly quotas: SPEC 8 rule 5) beside what its other jobs in flight hold, and reserves it.
 * The reservation commits or rolls back with the job; it is settled as the job's operations are
 * debited and released when the job ends (usage/reservations.ts).
 */
export function admitJob(
  tx: Queryable,
  settings: BillingSettings,
  account: { userId: string; plan: string },
  job: { jobId: string; channel: "api" | "webapp" },
  expected: Expected,
  now: number,
): void {
  if (job.channel === "api") assertCanPay(tx, settings, account, now, expected.cost, job.jobId);
  else assertWebappQuota(tx, settings, account, now, expected, job.jobId);
  reserve(tx, { jobId: job.jobId, userId: account.userId, channel: job.channel }, expected, now);
}
