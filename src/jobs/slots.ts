import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { busySlotsIn } from "./store.ts";

/** Processings an account may have queued or running at once, by plan name. */
export type ParallelSlots = Readonly<Record<string, number>>;

export const DEFAULT_PARALLEL_SLOTS: ParallelSlots = { free: 1, standard: 3, pro: 5 };

/**
 * Refuses new work when the account's processings fill its plan's slots (SPEC 8, rule 2).
 * Queued and running jobs both hold a slot; document jobs spawned by a meeting (with a parent)
 * hold none, as documents requested at creation need no free slot. Runs inside the creating
 * transaction so two concurrent requests cannot both take the last slot.
 */
export function assertFreeSlot(db: Queryable, userId: string, plan: string, slots: ParallelSlots): void {
  const busy = busySlotsIn(db, userId);
  const limit = slots[plan] ?? 1;
  if (busy >= limit) {
    throw new ApiError(
      "parallel_processing_limit",
      `All ${limit} processing slot(s) of the ${plan} plan are busy. Nothing was created; retry in 30 seconds.`,
      { headers: { "Retry-After": "30" } },
    );
  }
}

/** `assertFreeSlot` for a caller holding a `Conn` (inside the transaction that creates the work). */
export function assertSlotFree(c: Conn, userId: string, plan: string, slots: ParallelSlots): Promise<void> {
  return run(c, (q) => assertFreeSlot(q, userId, plan, slots));
}
