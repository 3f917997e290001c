import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { events } from "../events/table.ts";
import { queueDelivery } from "./deliveries.ts";
import { webhookEndpoints } from "./table.ts";

/** Whether an endpoint subscribed to this type: its list names it, or holds "*" (every type but ping). */
export function subscribes(endpointEvents: readonly string[], type: string): boolean {
  if (type === "ping") return false;
  return endpointEvents.includes(type) || endpointEvents.includes("*");
}

/**
 * Turns the events not yet fanned out into deliveries: one per enabled endpoint of the event's
 * account that subscribes to its type, in one transaction with marking the event done, so a crash
 * can neither lose an event's deliveries nor make them twice. A batch at a time, oldest first.
 */
export function fanOutEvents(db: Db, now: number, batch = 200): number {
  return db.transaction(
    (tx) => {
      const pending = tx.select().from(events).where(isNull(events.fannedOutAt)).orderBy(asc(events.createdAt)).limit(batch).all();
      const endpointsByUser = new Map<string, (typeof webhookEndpoints.$inferSelect)[]>();
      for (const event of pending) {
        let endpoints = endpointsByUser.get(event.userId);
        if (!endpoints) {
          endpoints = tx
            .select()
            .from(webhookEndpoints)
            .where(and(eq(webhookEndpoints.userId, event.userId), eq(webhookEndpoints.enabled, true)))
            .all();
          endpointsByUser.set(event.userId, endpoints);
        }
        for (const endpoint of endpoints) {
          if (subscribes(endpoint.events, event.type)) {
            queueDelivery(tx, { userId: event.userId, endpointId: endpoint.id, eventId: event.id, eventType: event.type, now });
          }
        }
        tx.update(events).set({ fannedOutAt: now }).where(eq(events.id, event.id)).run();
      }
      return pending.length;
    },
    { behavior: "immediate" },
  );
}
