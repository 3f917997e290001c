import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { randomId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import { API_VERSION } from "../lib/version.ts";
import { events } from "./table.ts";

export const EVENT_TYPES = [
  "transcription.completed",
  "transcription.failed",
  "processing.completed",
  "processing.failed",
  "document.generated",
  "document.failed",
  "usage.threshold_reached",
  "ping",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Records an event (SPEC 6) with its full envelope, inside the caller's transaction, so the event
 * exists exactly when the state change it reports does. Webhook deliveries are made from these rows.
 * The envelope holds the meeting as it was (title, metadata, report): an event names its meeting
 * so that deleting the meeting purges its events too (purgeMeetingEvents), content and all.
 */
export function emitEvent(db: Queryable, input: { userId: string; type: EventType; object: unknown; now: number; meetingId?: string | null }) {
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
  db.insert(events)
    .values({
      id,
      userId: input.userId,
      type: input.type,
      apiVersion: API_VERSION,
      payload: JSON.stringify(envelope),
      meetingId: input.meetingId ?? null,
      createdAt: input.now,
    })
    .run();
  return envelope;
}

/** Deletes the events about a meeting, inside the deleting transaction. */
export function purgeMeetingEvents(db: Queryable, meetingId: string): void {
  db.delete(events).where(eq(events.meetingId, meetingId)).run();
}
