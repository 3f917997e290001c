// The PostgreSQL twin of table.ts, checked by src/db/schema-parity.test.ts (stores query through table.ts).
import { sql } from "drizzle-orm";
import { bigint, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";

export const vocabularyTerms = pgTable(
  "vocabulary_terms",
  {
    /** Exposed as voc_<id>. */
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    term: text("term").notNull(),
    variants: text("variants").$type<string[]>().notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("vocabulary_terms_user_term_unique").on(t.userId, sql`lower(${t.term})`)],
);
