import type { JobQueue } from "../jobs/pg-boss-store.ts";
import type { Account } from "../auth/actor.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import type { Channel } from "../lib/channel.ts";
import { expectedDocument, expectedProcessing, expectedReport } from "./estimate.ts";
import type { Expected } from "./reservation-store.ts";
import type { BillingSettings } from "./settings.ts";

// What admission (usage/admission-store.ts: admit, admitBeforeUpload) needs and weighs: the
// configuration it reads, who asks on which channel, and what the work is expected to cost.

/** What admission needs from the configuration: the plans' processing slots and the billing terms. */
export interface AdmissionDeps {
  slots: ParallelSlots;
  billing: BillingSettings;
  /** Where an admitted job is announced to the workers (jobs/pg-boss-store.ts). */
  jobQueue: JobQueue;
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
