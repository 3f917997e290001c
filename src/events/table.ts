import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

/** Every event the service emitted, in order; webhook deliveries are made from these rows. */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    type: text("type").notNull(),
    apiVersion: text("api_version").notNull(),
    /** The whole event envelope as JSON, exactly as it will be sent. */
    payload: text("payload").notNull(),
    /** The meeting the event is about, so deleting the meeting purges its events. */
    meetingId: text("meeting_id"),
    createdAt: integer("created_at").notNull(),
    /** When its webhook deliveries were made (one per matching endpoint); null until then. */
    fannedOutAt: integer("fanned_out_at"),
  },
  (t) => [
    index("events_user_created").on(t.userId, t.createdAt),
    index("events_meeting").on(t.meetingId),
    index("events_fan_out").on(t.fannedOutAt, t.createdAt),
  ],
);
