import { asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run } from "../db/conn.ts";
import { isPostgres, rows } from "../db/sql.ts";
import type { Conn } from "../db/conn.ts";
import { randomId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import { API_VERSION } from "../lib/version.ts";
import type { EventType } from "./types.ts";
import { events } from "./table.ts";

export type EventRow = typeof events.$inferSelect;
export type EventEnvelope = Awaited<ReturnType<typeof emitEvent>>;

/**
 * Records an event (SPEC 6) with its full envelope, inside the caller's transaction, so the event
 * exists exactly when the state change it reports does. Webhook deliveries are made from these rows.
 * The envelope holds the meeting as it was (title, metadata, report): an event names its meeting
 * so that deleting the meeting purges its events too (purgeMeetingEvents), content and all.
 */
export async function emitEvent(db: Queryable, input: { userId: string; type: EventType; object: unknown; now: number; meetingId?: string | null }) {
  const id = randomId("evt");
  const envelope = {
    id,
    object: "event",
    type: input.type,
    created: toRfc3339(input.now),
    api_version: API_VERSION,
    livemode: true,
    data: { object: input.object },
  };
  await db.insert(events).values({
    id,
    userId: input.userId,
    type: input.type,
    apiVersion: API_VERSION,
    payload: JSON.stringify(envelope),
    meetingId: input.meetingId ?? null,
    createdAt: input.now,
  });
  return envelope;
}

/** Deletes the events about a meeting, inside the deleting transaction. */
export async function purgeMeetingEvents(db: Queryable, meetingId: string): Promise<void> {
  await db.delete(events).where(eq(events.meetingId, meetingId));
}

/**
 * The `Conn` face of events/: what top-level callers (use cases, the delivery thread) await.
 * `emitEvent` and `purgeMeetingEvents` above are for the other domains' store bodies (a
 * Queryable); these run them on a `Conn` (the database, or an open `withTx` transaction).
 */
export function recordEvent(c: Conn, input: { userId: string; type: EventType; object: unknown; now: number; meetingId?: string | null }): Promise<EventEnvelope> {
  return run(c, (q) => emitEvent(q, input));
}

/** Deletes the events about a meeting (inside the deleting transaction when `c` is one). */
export function deleteMeetingEvents(c: Conn, meetingId: string): Promise<void> {
  return run(c, (q) => purgeMeetingEvents(q, meetingId));
}

/**
 * Events not fanned out into webhook deliveries yet, oldest first. On PostgreSQL several nodes fan
 * out at once: the events are taken FOR UPDATE SKIP LOCKED, so inside the fan-out's transaction
 * (webhooks/fanout.ts) each is this node's alone until it is marked, and none gets its
 * deliveries twice. SQLite's BEGIN IMMEDIATE serialises the fan-outs already.
 */
export function eventsToFanOut(c: Conn, limit: number): Promise<EventRow[]> {
  return run(c, async (q) => {
    if (!isPostgres(q)) return await q.select().from(events).where(isNull(events.fannedOutAt)).orderBy(asc(events.createdAt)).limit(limit);
    const taken = await rows<{ id: string }>(
      q,
      sql`SELECT ${events.id} AS id FROM ${events} WHERE ${isNull(events.fannedOutAt)} ORDER BY ${events.createdAt} LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
    if (!taken.length) return [];
    return await q.select().from(events).where(inArray(events.id, taken.map((t) => t.id))).orderBy(asc(events.createdAt));
  });
}

/** The event's deliveries were made (or it needs none: a ping, sent to one endpoint only). */
export function markFannedOut(c: Conn, eventId: string, now: number): Promise<void> {
  return run(c, async (q) => {
    await q.update(events).set({ fannedOutAt: now }).where(eq(events.id, eventId));
  });
}

/** The envelope as it will be sent, or undefined once the event was deleted (with its meeting). */
export function eventPayload(c: Conn, eventId: string): Promise<string | undefined> {
  return run(c, async (q) => (await q.select({ payload: events.payload }).from(events).where(eq(events.id, eventId)).limit(1))[0]?.payload);
}
