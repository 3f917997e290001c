// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";

export const idempotencyKeys = pgTable(
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
    responseStatus: bigint("response_status", { mode: "number" }),
    responseBody: text("response_body"),
    /** The resource the request created (a meeting id), so deleting it deletes its stored response. */
    resourceId: text("resource_id"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.operation, t.key] }), index("idempotency_keys_resource").on(t.resourceId), index("idempotency_keys_created").on(t.createdAt)],
);
