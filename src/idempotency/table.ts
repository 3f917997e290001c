import { sqliteTable, text, integer, primaryKey } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /** The operation, e.g. "POST /v1/meetings": the same key on another operation is another key. */
    operation: text("operation").notNull(),
    key: text("key").notNull(),
    status: text("status", { enum: ["in_progress", "done"] }).notNull(),
    /** sha256 of the request (body, or fields and file digest for uploads), set when done. */
    requestHash: text("request_hash"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.operation, t.key] })],
);
