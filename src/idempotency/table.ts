import { sqliteTable, text, integer, primaryKey, index } from "drizzle-orm/sqlite-core";
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
    /** The resource the request created (a meeting id), so deleting it deletes its stored response. */
    resourceId: text("resource_id"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.operation, t.key] }), index("idempotency_keys_resource").on(t.resourceId), index("idempotency_keys_created").on(t.createdAt)],
);
