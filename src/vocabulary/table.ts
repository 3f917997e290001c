import { sql } from "drizzle-orm";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

/**
 * The account's glossary (issue 23): terms whisper is prompted with, each with the spoken variants
 * that a finished transcript has replaced by the term. Deleted with the account (its user_id).
 */
export const vocabularyTerms = sqliteTable(
  "vocabulary_terms",
  {
    /** Exposed as voc_<id>. */
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    term: text("term").notNull(),
    /** What whisper writes instead of the term ("cooper netties"), without case duplicates. */
    variants: text("variants", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  // One term per spelling and account, compared without case: a second one is refused (409).
  (t) => [uniqueIndex("vocabulary_terms_user_term_unique").on(t.userId, sql`${t.term} COLLATE NOCASE`)],
);
