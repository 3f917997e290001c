import { eq } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { emitEvent } from "../events/service.ts";
import { events } from "../events/table.ts";
import type { Clock } from "../lib/time.ts";
import { queueDelivery, type DeliveryRow } from "./deliveries.ts";
import { getOwnedEndpoint } from "./endpoints.ts";

/**
 * A signed ping to one of the user's endpoints (API .../test and the web app's test button): a
 * ping event marked as fanned out already, so only this endpoint gets it, and its delivery, which
 * the caller asks the delivery thread to send now.
 */
export function queuePing(db: Db, clock: Clock, userId: string, endpointId: string): DeliveryRow {
  const endpoint = getOwnedEndpoint(db, userId, endpointId);
  const now = clock.now();
  return db.transaction((tx) => {
    const event = emitEvent(tx, {
      userId: endpoint.userId,
      type: "ping",
      now,
      object: { object: "ping", message: `Test event for webhook endpoint ${endpoint.id}.`, endpoint_id: endpoint.id },
    });
    tx.update(events).set({ fannedOutAt: now }).where(eq(events.id, event.id)).run();
    return queueDelivery(tx, { userId: endpoint.userId, endpointId: endpoint.id, eventId: event.id, eventType: "ping", now });
  });
}
