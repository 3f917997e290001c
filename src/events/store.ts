import { asc, eq, isNull } from "drizzle-orm";
import { run } from "../db/conn.ts";
import type { Conn } from "../db/conn.ts";
import { emitEvent, purgeMeetingEvents, type EventType } from "./service.ts";
import { events } from "./table.ts";

export type EventRow = typeof events.$inferSelect;
export type EventEnvelope = ReturnType<typeof emitEvent>;

/**
 * The async face of events/: what top-level callers (use cases, the delivery thread) await. The
 * sync `emitEvent` and `purgeMeetingEvents` of service.ts stay for the other domains' synchronous
 * transaction bodies; these run them on a `Conn` (the database, or an open `withTx` transaction).
 */
export function recordEvent(c: Conn, input: { userId: string; type: EventType; object: unknown; now: number; meetingId?: string | null }): Promise<EventEnvelope> {
  return run(c, (q) => emitEvent(q, input));
}

/** Deletes the events about a meeting (inside the deleting transaction when `c` is one). */
export function deleteMeetingEvents(c: Conn, meetingId: string): Promise<void> {
  return run(c, (q) => purgeMeetingEvents(q, meetingId));
}

/** Events not fanned out into webhook deliveries yet, oldest first. */
export function eventsToFanOut(c: Conn, limit: number): Promise<EventRow[]> {
  return run(c, (q) => q.select().from(events).where(isNull(events.fannedOutAt)).orderBy(asc(events.createdAt)).limit(limit).all());
}

/** The event's deliveries were made (or it needs none: a ping, sent to one endpoint only). */
export function markFannedOut(c: Conn, eventId: string, now: number): Promise<void> {
  return run(c, (q) => {
    q.update(events).set({ fannedOutAt: now }).where(eq(events.id, eventId)).run();
  });
}

/** The envelope as it will be sent, or undefined once the event was deleted (with its meeting). */
export function eventPayload(c: Conn, eventId: string): Promise<string | undefined> {
  return run(c, (q) => q.select({ payload: events.payload }).from(events).where(eq(events.id, eventId)).get()?.payload);
}
