// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";

export const feedback = pgTable(
  "feedback",
  {
    /** Exposed as fb_<id>. */
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    type: text("type", { enum: ["bug", "feature_request", "question", "feedback"] }).notNull(),
    message: text("message").notNull(),
    // Kept as plain text, not a foreign key: feedback outlives a deleted meeting.
    meetingId: text("meeting_id"),
    status: text("status").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("feedback_user").on(t.userId)],
);
