import { eq } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { emitEvent } from "../events/service.ts";
import { events } from "../events/table.ts";
import { SlidingWindowLimiter, WINDOW_SECONDS } from "../http/rate-limit.ts";
import type { Clock } from "../lib/time.ts";
import { queueDelivery, type DeliveryRow } from "./deliveries.ts";
import { getOwnedEndpoint } from "./endpoints.ts";

/**
 * Test pings one endpoint may be sent per sliding 60 s window. A ping is an outbound request to a
 * URL the caller chose: without a bound of its own, a loop of test calls (within the caller's
 * request budget, times every key it holds) points the service at a receiver as often as it likes.
 * Enough to debug a receiver and to watch the 15-failure disable rule at work.
 */
export const PINGS_PER_ENDPOINT_PER_WINDOW = 20;

/**
 * Counts each endpoint's test pings, in the API process (the API's .../test and the web app's test
 * button share one). Kept in memory: a restart forgets the window, which lets at most one more
 * window's worth through.
 */
export class PingThrottle {
  private readonly windows = new SlidingWindowLimiter();

  constructor(private readonly limit = PINGS_PER_ENDPOINT_PER_WINDOW) {}

  /** Counts one ping of this endpoint, or throws 429 rate_limited with Retry-After. */
  admit(endpointId: string, now: number): void {
    const state = this.windows.consume(endpointId, this.limit, now);
    if (state.allowed) return;
    throw new ApiError(
      "rate_limited",
      `This endpoint was sent ${this.limit} test pings in the last ${WINDOW_SECONDS} seconds. Retry after ${state.retryAfter} seconds.`,
      { headers: { "Retry-After": String(state.retryAfter) } },
    );
  }
}

/**
 * A signed ping to one of the user's endpoints (API .../test and the web app's test button): a
 * ping event marked as fanned out already, so only this endpoint gets it, and its delivery, which
 * the caller asks the delivery thread to send now. The thread sends it within the same bounds as
 * every delivery (in flight overall and per endpoint); beyond them it waits its turn.
 */
export function queuePing(db: Db, clock: Clock, throttle: PingThrottle, userId: string, endpointId: string): DeliveryRow {
  const endpoint = getOwnedEndpoint(db, userId, endpointId);
  const now = clock.now();
  throttle.admit(endpoint.id, now);
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
