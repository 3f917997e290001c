// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";

/** Every event the service emitted, in order; webhook deliveries are made from these rows. */
export const events = pgTable(
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
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    /** When its webhook deliveries were made (one per matching endpoint); null until then. */
    fannedOutAt: bigint("fanned_out_at", { mode: "number" }),
  },
  (t) => [
    index("events_user_created").on(t.userId, t.createdAt),
    index("events_meeting").on(t.meetingId),
    index("events_fan_out").on(t.fannedOutAt, t.createdAt),
  ],
);
