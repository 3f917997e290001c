import { and, desc, eq, inArray, isNull, lt } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { paginate } from "../http/pagination.ts";
import { randomId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import { webhookDeliveries } from "./table.ts";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Deliveries are kept 30 days (SPEC 6, Delivery rules). */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export function renderDelivery(row: DeliveryRow) {
  const time = (ms: number | null) => (ms === null ? null : toRfc3339(ms));
  return {
    id: row.id,
    object: "webhook_delivery" as const,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    response_status: row.responseStatus,
    response_body_excerpt: row.responseBodyExcerpt,
    duration_ms: row.durationMs,
    error: row.error,
    next_retry_at: row.status === "retrying" ? time(row.nextAttemptAt) : null,
    last_attempt_at: time(row.lastAttemptAt),
    created_at: toRfc3339(row.createdAt),
  };
}

/** A pending delivery of one event to one endpoint, due now. */
export function queueDelivery(tx: Queryable, input: { userId: string; endpointId: string; eventId: string; eventType: string; now: number }): DeliveryRow {
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
  tx.insert(webhookDeliveries).values(row).run();
  return row;
}

/** A disabled endpoint's unfinished deliveries wait, not due, until it is enabled again. */
export function parkDeliveries(tx: Queryable, endpointId: string): void {
  tx.update(webhookDeliveries)
    .set({ nextAttemptAt: null })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.status, ["pending", "retrying"])))
    .run();
}

/** An endpoint enabled again: its parked deliveries are due now. */
export function unparkDeliveries(tx: Queryable, endpointId: string, now: number): void {
  tx.update(webhookDeliveries)
    .set({ nextAttemptAt: now })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), inArray(webhookDeliveries.status, ["pending", "retrying"]), isNull(webhookDeliveries.nextAttemptAt)))
    .run();
}

/** An endpoint's deliveries, newest first. */
export function listDeliveries(db: Queryable, endpointId: string, page: { limit: number; cursor?: string }) {
  return paginate(
    page,
    (after, take) =>
      db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.endpointId, endpointId), newestFirstAfter(webhookDeliveries.createdAt, webhookDeliveries.id, after)))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(take)
        .all(),
    (row) => [row.createdAt, row.id],
    (rows) => rows.map(renderDelivery),
  );
}

/** Removes deliveries older than 30 days; answers how many. */
export function purgeOldDeliveries(db: Queryable, now: number): number {
  return db.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, now - DELIVERY_RETENTION_MS)).returning({ id: webhookDeliveries.id }).all().length;
}
