import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { refuseWhenSlotsBusy, type ParallelSlots } from "./slots.ts";
import { busySlotsIn } from "./store.ts";

/**
 * Refuses new work when the account's processings fill its plan's slots (SPEC 8, rule 2).
 * Queued and running jobs both hold a slot; document jobs spawned by a meeting (with a parent)
 * hold none, as documents requested at creation need no free slot. Runs inside the creating
 * transaction so two concurrent requests cannot both take the last slot (on PostgreSQL the
 * caller's transaction holds the account's lock first: db/sql.ts `lockAccount`).
 */
export async function assertFreeSlot(db: Queryable, userId: string, plan: string, slots: ParallelSlots): Promise<void> {
  refuseWhenSlotsBusy(await busySlotsIn(db, userId), plan, slots);
}

/** `assertFreeSlot` for a caller holding a `Conn` (inside the transaction that creates the work). */
export function assertSlotFree(c: Conn, userId: string, plan: string, slots: ParallelSlots): Promise<void> {
  return run(c, (q) => assertFreeSlot(q, userId, plan, slots));
}
