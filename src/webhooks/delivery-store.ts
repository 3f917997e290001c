import { and, asc, desc, eq, inArray, isNull, lt, lte, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { paginate, type Page } from "../http/pagination.ts";
import { randomId } from "../lib/ids.ts";
import { webhookDeliveries, webhookEndpoints } from "./table.ts";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Deliveries are kept 30 days (SPEC 6, Delivery rules). */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** A pending delivery of one event to one endpoint, due now. */
export function queueDelivery(c: Conn, input: { userId: string; endpointId: string; eventId: string; eventType: string; now: number }): Promise<DeliveryRow> {
  const row: DeliveryRow = {
    id: randomId("whd"),
    userId: input.userId,
    endpointId: input.endpointId,
    eventId: input.eventId,
    eventType: input.eventType,
    status: "pending",
    attempts: 0,
    responseStatus: null,
    responseBodyExcerpt: null,
    durationMs: null,
    error: null,
    nextAttemptAt: input.now,
    lastAttemptAt: null,
    createdAt: input.now,
  };
  return run(c, (q) => {
    q.insert(webhookDeliveries).values(row).run();
    return row;
  });
}

function park(q: Queryable, endpointId: string): void {
  q.update(webhookDeliveries)
    .set({ nextAttemptAt: null })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.status, ["pending", "retrying"])))
    .run();
}

/** A disabled endpoint's unfinished deliveries wait, not due, until it is enabled again. */
export function parkDeliveries(c: Conn, endpointId: string): Promise<void> {
  return run(c, (q) => park(q, endpointId));
}

/** An endpoint enabled again: its parked deliveries are due now. */
export function unparkDeliveries(c: Conn, endpointId: string, now: number): Promise<void> {
  return run(c, (q) => {
    q.update(webhookDeliveries)
      .set({ nextAttemptAt: now })
      .where(and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.status, ["pending", "retrying"]), isNull(webhookDeliveries.nextAttemptAt)))
      .run();
  });
}

/** A page of an endpoint's deliveries, newest first. */
export function deliveriesPage(c: Conn, endpointId: string, page: { limit: number; cursor?: string }): Promise<Page<DeliveryRow>> {
  return run(c, (q) =>
    paginate(
      page,
      (after, take) =>
        q
          .select()
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.endpointId, endpointId), newestFirstAfter(webhookDeliveries.createdAt, webhookDeliveries.id, after)))
          .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
          .limit(take)
          .all(),
      (row) => [row.createdAt, row.id],
      (rows) => rows,
    ),
  );
}

/** Removes deliveries older than 30 days (the retention sweep, storage/retention.ts); answers how many. */
export function purgeOldDeliveries(c: Conn, now: number): Promise<number> {
  return run(c, (q) => q.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, now - DELIVERY_RETENTION_MS)).returning({ id: webhookDeliveries.id }).all().length);
}

export function findDelivery(c: Conn, deliveryId: string): Promise<DeliveryRow | undefined> {
  return run(c, (q) => q.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get());
}

/** An endpoint's deliveries due at `now`, oldest due first (by index), at most `limit`. */
export function dueDeliveriesOf(c: Conn, endpointId: string, now: number, limit: number): Promise<DeliveryRow[]> {
  return run(c, (q) =>
    q
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpointId), lte(webhookDeliveries.nextAttemptAt, now)))
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(limit)
      .all(),
  );
}

/** A delivery that can never be sent (its event was deleted with its meeting): failed, with why. */
export function failDelivery(c: Conn, deliveryId: string, error: string): Promise<void> {
  return run(c, (q) => {
    q.update(webhookDeliveries).set({ status: "failed", nextAttemptAt: null, error }).where(eq(webhookDeliveries.id, deliveryId)).run();
  });
}

export interface AttemptRecord {
  deliveryId: string;
  endpointId: string;
  now: number;
  /** The delivery's attempts, this one included. */
  attempts: number;
  ok: boolean;
  responseStatus: number | null;
  responseBodyExcerpt: string | null;
  durationMs: number;
  error: string | null;
  /** When to try again after a failed attempt; null when it was the last one. */
  retryAt: number | null;
  /** Consecutive failures that disable the endpoint. */
  disableAfter: number;
}

/**
 * One attempt's outcome, the delivery's next state and the endpoint's failure count, in one
 * transaction: success resets the count; a failure raises it and, at `disableAfter`, disables the
 * endpoint and parks its deliveries. Answers whether this attempt disabled it.
 */
export function recordAttempt(c: Conn, a: AttemptRecord): Promise<{ disabled: boolean }> {
  return runTx(c, (q) => {
    const attempt = {
      attempts: a.attempts,
      lastAttemptAt: a.now,
      responseStatus: a.responseStatus,
      responseBodyExcerpt: a.responseBodyExcerpt,
      durationMs: a.durationMs,
      error: a.error,
    };
    if (a.ok) {
      q.update(webhookDeliveries).set({ ...attempt, status: "succeeded", nextAttemptAt: null }).where(eq(webhookDeliveries.id, a.deliveryId)).run();
      q.update(webhookEndpoints).set({ consecutiveFailures: 0 }).where(eq(webhookEndpoints.id, a.endpointId)).run();
      return { disabled: false };
    }
    q.update(webhookDeliveries)
      .set({ ...attempt, status: a.retryAt === null ? "failed" : "retrying", nextAttemptAt: a.retryAt })
      .where(eq(webhookDeliveries.id, a.deliveryId))
      .run();
    const updated = q
      .update(webhookEndpoints)
      .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
      .where(eq(webhookEndpoints.id, a.endpointId))
      .returning({ failures: webhookEndpoints.consecutiveFailures, enabled: webhookEndpoints.enabled })
      .get();
    if (updated && updated.enabled && updated.failures >= a.disableAfter) {
      q.update(webhookEndpoints).set({ enabled: false, disabledReason: "too_many_failures", updatedAt: a.now }).where(eq(webhookEndpoints.id, a.endpointId)).run();
      park(q, a.endpointId);
      return { disabled: true };
    }
    return { disabled: false };
  });
}
