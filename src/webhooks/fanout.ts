import { withTx, type Conn } from "../db/conn.ts";
import { eventsToFanOut, markFannedOut } from "../events/store.ts";
import { queueDelivery } from "./delivery-store.ts";
import { enabledEndpointsOf, type EndpointRow } from "./endpoint-store.ts";

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
export function fanOutEvents(c: Conn, now: number, batch = 200): Promise<number> {
  return withTx(c, async (tx) => {
    const pending = await eventsToFanOut(tx, batch);
    const endpointsByUser = new Map<string, EndpointRow[]>();
    for (const event of pending) {
      let endpoints = endpointsByUser.get(event.userId);
      if (!endpoints) {
        endpoints = await enabledEndpointsOf(tx, event.userId);
        endpointsByUser.set(event.userId, endpoints);
      }
      for (const endpoint of endpoints) {
        if (subscribes(endpoint.events, event.type)) {
          await queueDelivery(tx, { userId: event.userId, endpointId: endpoint.id, eventId: event.id, eventType: event.type, now });
        }
      }
      await markFannedOut(tx, event.id, now);
    }
    return pending.length;
  });
}
