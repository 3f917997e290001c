import type { Account } from "../auth/actor.ts";
import { run, type Conn } from "../db/conn.ts";
import type { Queryable } from "../db/client.ts";
import { assertFreeSlot, type ParallelSlots } from "../jobs/slots.ts";
import type { Channel } from "../lib/channel.ts";
import { admitJob, assertCanPay } from "./admission.ts";
import { expectedDocument, expectedProcessing, expectedReport } from "./estimate.ts";
import type { Expected } from "./reservations.ts";
import type { BillingSettings } from "./settings.ts";
import { assertWebappQuota } from "./webapp-quota.ts";

/** What admission needs from the configuration: the plans' processing slots and the billing terms. */
export interface AdmissionDeps {
  slots: ParallelSlots;
  billing: BillingSettings;
}

/** Who asks for the work, and through which channel it is metered (SPEC 8 rule 5). */
export interface Admitted {
  account: Pick<Account, "userId"> & { plan: string };
  channel: Channel;
}

/**
 * The work a job will do, from which its expected cost is estimated (usage/estimate.ts):
 * a meeting's processing (its audio, when its duration is known, and its report unless
 * transcribe_only), a report written from a stored transcript, or a document.
 */
export type Work =
  | { kind: "processing"; audioSeconds: number | null; report: boolean }
  | { kind: "report"; transcriptChars: number }
  | { kind: "document"; readChars: number };

export function expectedOf(billing: BillingSettings, work: Work): Expected {
  switch (work.kind) {
    case "processing":
      return expectedProcessing(billing, { audioSeconds: work.audioSeconds, report: work.report });
    case "report":
      return expectedReport(billing, work.transcriptChars);
    case "document":
      return expectedDocument(billing, work.readChars);
  }
}

/**
 * THE admission of new work, for both channels, inside the transaction that creates it:
 * 1. a free processing slot of the account's plan (429 parallel_processing_limit, jobs/slots.ts);
 * 2. `queue()` queues the job (enqueueJob) and returns its id;
 * 3. the job's expected cost must be payable on its channel: the API wallet then on-demand billing
 *    (402 insufficient_balance / spend_cap_reached), or the web app's own monthly quotas (402
 *    webapp_quota_reached), beside what the account's jobs in flight reserve;
 * 4. the expected cost is reserved (usage_reservations), committed or rolled back with the job.
 * Synchronous so it runs inside a sync transaction body; from a `withTx` body call it through
 * `await run(tx, (q) => admit(q, …))`. Returns the job's id.
 */
export function admit(q: Queryable, deps: AdmissionDeps, who: Admitted, work: Work, now: number, queue: () => string): string {
  assertFreeSlot(q, who.account.userId, who.account.plan, deps.slots);
  const jobId = queue();
  admitJob(q, deps.billing, who.account, { jobId, channel: who.channel }, expectedOf(deps.billing, work), now);
  return jobId;
}

/**
 * The fail-fast check before a long upload or recording, outside any transaction and without
 * reserving anything (admit() checks again when the job is created): a free processing slot,
 * then for the API a balance that can pay the admission hold, for the web app some minutes of
 * audio left this month. `slot: false` for a draft being opened: it holds no slot until it is
 * finished (the recording may take an hour), only the quota must have minutes left.
 */
export function admitBeforeUpload(q: Queryable, deps: AdmissionDeps, who: Admitted, now: number, options: { slot?: boolean } = {}): void {
  if (options.slot !== false) assertFreeSlot(q, who.account.userId, who.account.plan, deps.slots);
  if (who.channel === "api") assertCanPay(q, deps.billing, who.account, now);
  else assertWebappQuota(q, deps.billing, who.account, now, "audio");
}

/** admitBeforeUpload over a `Conn`, for the use cases. */
export function checkBeforeUpload(c: Conn, deps: AdmissionDeps, who: Admitted, now: number, options: { slot?: boolean } = {}): Promise<void> {
  return run(c, (q) => admitBeforeUpload(q, deps, who, now, options));
}
