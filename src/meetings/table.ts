import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

export const meetings = sqliteTable(
  "meetings",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    title: text("title").notNull(),
    status: text("status", { enum: ["draft", "queued", "processing", "completed", "failed"] }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("meetings_user_created").on(t.userId, t.createdAt)],
);
