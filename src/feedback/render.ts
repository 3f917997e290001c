import { numericId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import type { FeedbackRow } from "./store.ts";

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
