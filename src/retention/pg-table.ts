// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";

export const retentionPolicies = pgTable("retention_policies", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  deleteAfterDays: bigint("delete_after_days", { mode: "number" }),
  recordingDeleteAfterDays: bigint("recording_delete_after_days", { mode: "number" }),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});
