// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { sql } from "drizzle-orm";
import { bigint, boolean, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";

export const clients = pgTable(
  "clients",
  {
    /** Exposed as cli_<id>. */
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    email: text("email"),
    phone: text("phone"),
    isArchived: boolean("is_archived").notNull().default(false),
    /** A legal hold on the folder (issue 23): none of its meetings is deleted, by its owner or by retention, until lifted. */
    legalHold: boolean("legal_hold").notNull().default(false),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  // One folder per name and account, names compared without case: find-or-create relies on it.
  (t) => [uniqueIndex("clients_user_name_unique").on(t.userId, sql`lower(${t.name})`)],
);
