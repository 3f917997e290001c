import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

export const feedback = sqliteTable(
  "feedback",
  {
    /** Exposed as fb_<id>. */
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    type: text("type", { enum: ["bug", "feature_request", "question", "feedback"] }).notNull(),
    message: text("message").notNull(),
    // Kept as plain text, not a foreign key: feedback outlives a deleted meeting.
    meetingId: text("meeting_id"),
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("feedback_user").on(t.userId)],
);
