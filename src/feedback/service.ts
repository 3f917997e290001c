import type { Db } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { numericId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import { ownsMeeting } from "../meetings/store.ts";
import type { CreateFeedback } from "./schema.ts";
import { feedback } from "./table.ts";

type FeedbackRow = typeof feedback.$inferSelect;

export function createFeedback(db: Db, userId: string, input: CreateFeedback, now = Date.now()) {
  const meetingId = input.meeting_id?.toLowerCase() ?? null;
  // Another account's meeting answers as absent (404), never as forbidden.
  if (meetingId !== null && !ownsMeeting(db, userId, meetingId)) throw ApiError.notFound(`Meeting ${meetingId}`);
  const row = db
    .insert(feedback)
    .values({ userId, type: input.type, message: input.message, meetingId, status: "received", createdAt: now })
    .returning()
    .get();
  return renderFeedback(row);
}

export function renderFeedback(row: FeedbackRow) {
  return {
    id: numericId("fb", row.id),
    object: "feedback" as const,
    type: row.type,
    meeting_id: row.meetingId,
    message: row.message,
    status: row.status as "received",
    created_at: toRfc3339(row.createdAt),
  };
}
