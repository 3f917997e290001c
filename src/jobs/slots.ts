import { ApiError } from "../errors/api-error.ts";

/** Processings an account may have queued or running at once, by plan name. */
export type ParallelSlots = Readonly<Record<string, number>>;

export const DEFAULT_PARALLEL_SLOTS: ParallelSlots = { free: 1, standard: 3, pro: 5 };

/**
 * The rule of SPEC 8, rule 2: new work is refused when the account's processings (`busy`, queued
 * and running) fill its plan's slots. Counted inside the creating transaction by
 * `assertFreeSlot` (jobs/slot-store.ts).
 */
export function refuseWhenSlotsBusy(busy: number, plan: string, slots: ParallelSlots): void {
  const limit = slots[plan] ?? 1;
  if (busy >= limit) {
    throw new ApiError(
      "parallel_processing_limit",
      `All ${limit} processing slot(s) of the ${plan} plan are busy. Nothing was created; retry in 30 seconds.`,
      { headers: { "Retry-After": "30" } },
    );
  }
}
