import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

export const clients = sqliteTable(
  "clients",
  {
    /** Exposed as cli_<id>. */
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    email: text("email"),
    phone: text("phone"),
    isArchived: integer("is_archived", { mode: "boolean" }).notNull().default(false),
    /** A legal hold on the folder (issue 23): none of its meetings is deleted, by its owner or by retention, until lifted. */
    legalHold: integer("legal_hold", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  // One folder per name and account, names compared without case: find-or-create relies on it.
  (t) => [uniqueIndex("clients_user_name_unique").on(t.userId, sql`${t.name} COLLATE NOCASE`)],
);
