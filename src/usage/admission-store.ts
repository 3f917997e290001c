import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { enqueueJob, type NewJob } from "../jobs/queue-store.ts";
import { assertFreeSlot } from "../jobs/slot-store.ts";
import type { JobPayload } from "../jobs/table.ts";
import { ApiError } from "../errors/api-error.ts";
import { balanceOf } from "./balance-store.ts";
import { reserve, type Expected } from "./reservation-store.ts";
import { expectedOf, type AdmissionDeps, type Admitted, type Work } from "./admission.ts";
import type { BillingSettings } from "./settings.ts";
import { assertWebappQuota } from "./webapp-quota-store.ts";

/**
 * Refuses an operation the account cannot pay for (SPEC 7 and 8): 402 insufficient_balance when
 * neither the wallet nor on-demand billing can pay `cost` (minor units) on top of what the
 * account's operations still running have reserved, 402 spend_cap_reached when on-demand billing
 * is on and its cap is what falls short. `exceptJobId`: a job whose own reservation is being
 * re-estimated does not count against itself. Runs inside the creating transaction, after
 * `lockAccount` (admit), so two requests are admitted one after the other.
 */
export async function assertCanPay(
  tx: Queryable,
  settings: BillingSettings,
  account: { userId: string; plan: string },
  now: number,
  cost = settings.holdPerOperation,
  exceptJobId?: string,
): Promise<void> {
  const balance = await balanceOf(tx, settings, account, now, exceptJobId);
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
 * debited and released when the job ends (usage/reservation-store.ts). It takes the account's
 * lock (`lockAccount`; taking it again in the same transaction is harmless), so the check and the
 * reservation are one step for the account, also when a job's reservation is re-estimated.
 */
export async function admitJob(
  tx: Queryable,
  settings: BillingSettings,
  account: { userId: string; plan: string },
  job: { jobId: string; channel: "api" | "webapp" },
  expected: Expected,
  now: number,
): Promise<void> {
  await lockAccount(tx, account.userId);
  if (job.channel === "api") await assertCanPay(tx, settings, account, now, expected.cost, job.jobId);
  else await assertWebappQuota(tx, settings, account, now, expected, job.jobId);
  await reserve(tx, { jobId: job.jobId, userId: account.userId, channel: job.channel }, expected, now);
}

/**
 * THE admission of new work, for both channels, inside the transaction that creates it:
 * 1. a free processing slot of the account's plan (429 parallel_processing_limit, jobs/slot-store.ts);
 * 2. `queue()` queues the job (enqueueJob) and returns its id;
 * 3. the job's expected cost must be payable on its channel: the API wallet then on-demand billing
 *    (402 insufficient_balance / spend_cap_reached), or the web app's own monthly quotas (402
 *    webapp_quota_reached), beside what the account's jobs in flight reserve;
 * 4. the expected cost is reserved (usage_reservations), committed or rolled back with the job.
 * First it takes the account's lock (`lockAccount`: a transaction advisory lock on PostgreSQL,
 * BEGIN IMMEDIATE already on SQLite), so two admissions of one account, on any node, read and
 * reserve one after the other: `q` must be a transaction's (`runTx`, or `run` on a `withTx`).
 * Returns the job's id.
 */
export async function admit(q: Queryable, deps: AdmissionDeps, who: Admitted, work: Work, now: number, queue: () => Promise<string> | string): Promise<string> {
  await lockAccount(q, who.account.userId);
  await assertFreeSlot(q, who.account.userId, who.account.plan, deps.slots);
  const jobId = await queue();
  await admitJob(q, deps.billing, who.account, { jobId, channel: who.channel }, expectedOf(deps.billing, work), now);
  return jobId;
}

/**
 * `admit` on a `Conn` (the transaction that creates the work, as a savepoint of it; or a
 * transaction of its own, which the account's lock needs), queueing `job` (enqueueJob): the job's id.
 */
export function admitAndQueue<P extends JobPayload>(c: Conn, deps: AdmissionDeps, who: Admitted, work: Work, now: number, job: NewJob<P>): Promise<string> {
  return runTx(c, (q) => admit(q, deps, who, work, now, () => enqueueJob(q, job, deps.jobQueue)));
}

/**
 * The fail-fast check before a long upload or recording, outside any transaction and without
 * reserving anything (admit() checks again when the job is created): a free processing slot,
 * then for the API a balance that can pay the admission hold, for the web app some minutes of
 * audio left this month. `slot: false` for a draft being opened: it holds no slot until it is
 * finished (the recording may take an hour), only the quota must have minutes left.
 */
export async function admitBeforeUpload(q: Queryable, deps: AdmissionDeps, who: Admitted, now: number, options: { slot?: boolean } = {}): Promise<void> {
  if (options.slot !== false) await assertFreeSlot(q, who.account.userId, who.account.plan, deps.slots);
  if (who.channel === "api") await assertCanPay(q, deps.billing, who.account, now);
  else await assertWebappQuota(q, deps.billing, who.account, now, "audio");
}

/** admitBeforeUpload over a `Conn`, for the use cases. */
export function checkBeforeUpload(c: Conn, deps: AdmissionDeps, who: Admitted, now: number, options: { slot?: boolean } = {}): Promise<void> {
  return run(c, (q) => admitBeforeUpload(q, deps, who, now, options));
}
