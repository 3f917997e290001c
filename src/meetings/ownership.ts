import { and, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { isUuid } from "../lib/ids.ts";
import { meetings } from "./table.ts";

/** True when the meeting exists and belongs to the user; another account's meeting is simply absent. */
export function ownsMeeting(db: Queryable, userId: string, meetingId: string): boolean {
  if (!isUuid(meetingId)) return false;
  const row = db
    .select({ id: meetings.id })
    .from(meetings)
    .where(and(eq(meetings.id, meetingId.toLowerCase()), eq(meetings.userId, userId)))
    .get();
  return row !== undefined;
}
