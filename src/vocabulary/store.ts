import { and, asc, count, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import type { GlossaryEntry } from "./replace.ts";
import { MAX_TERMS, type CreateTermBody, type PatchTermBody } from "./schema.ts";
import { vocabularyTerms } from "./table.ts";

export type TermRow = typeof vocabularyTerms.$inferSelect;

/** Case duplicates folded, the term itself left out: a variant spelled as its term is no variant. */
function distinctVariants(term: string, variants: readonly string[]): string[] {
  const seen = new Set([fold(term)]);
  return variants.filter((v) => !seen.has(fold(v)) && Boolean(seen.add(fold(v))));
}

function fold(text: string): string {
  return text.toLocaleLowerCase("und");
}

/** The account's glossary, oldest first (the replacement's and the prompt's order). */
export function listTerms(c: Conn, userId: string): Promise<TermRow[]> {
  return run(c, (q) => termsOf(q, userId));
}

async function termsOf(q: Queryable, userId: string): Promise<TermRow[]> {
  return q.select().from(vocabularyTerms).where(eq(vocabularyTerms.userId, userId)).orderBy(asc(vocabularyTerms.id));
}

/** The glossary as the replacement and the prompt read it, inside the caller's transaction. */
export async function glossaryOf(q: Queryable, userId: string): Promise<GlossaryEntry[]> {
  return (await termsOf(q, userId)).map((row) => ({ term: row.term, variants: row.variants }));
}

/**
 * The same term in another spelling of case is already there: 409. Compared in JavaScript, Unicode
 * case folded (SQLite's NOCASE, and so its unique index, folds ASCII only); the account's lock
 * makes the check and the write one step on PostgreSQL, BEGIN IMMEDIATE on SQLite.
 */
async function refuseDuplicate(q: Queryable, userId: string, term: string, except: number | null): Promise<void> {
  const existing = (await termsOf(q, userId)).find((row) => row.id !== except && fold(row.term) === fold(term));
  if (existing) {
    throw new ApiError("vocabulary_term_exists", `The glossary already holds "${existing.term}" (voc_${existing.id}); change that term instead.`);
  }
}

/** A new term; 400 when the glossary is full, 409 when it holds the term already. */
export function createTerm(c: Conn, userId: string, body: CreateTermBody, now: number): Promise<TermRow> {
  return runTx(c, async (q) => {
    await lockAccount(q, userId);
    const [held] = await q.select({ n: count() }).from(vocabularyTerms).where(eq(vocabularyTerms.userId, userId));
    if ((held?.n ?? 0) >= MAX_TERMS) {
      throw ApiError.validation([{ field: "term", code: "too_many_terms", message: `A glossary holds at most ${MAX_TERMS} terms; delete one first.` }]);
    }
    await refuseDuplicate(q, userId, body.term, null);
    const [created] = await q
      .insert(vocabularyTerms)
      .values({ userId, term: body.term, variants: distinctVariants(body.term, body.variants), createdAt: now, updatedAt: now })
      .returning();
    return created!;
  });
}

/** Changes a term or its variants; undefined when the account has no such term, 409 on a duplicate. */
export function updateTerm(c: Conn, userId: string, id: number, patch: PatchTermBody, now: number): Promise<TermRow | undefined> {
  return runTx(c, async (q) => {
    await lockAccount(q, userId);
    const [current] = await q.select().from(vocabularyTerms).where(and(eq(vocabularyTerms.userId, userId), eq(vocabularyTerms.id, id))).limit(1);
    if (!current) return undefined;
    const term = patch.term ?? current.term;
    if (patch.term !== undefined) await refuseDuplicate(q, userId, term, id);
    const [updated] = await q
      .update(vocabularyTerms)
      .set({ term, variants: distinctVariants(term, patch.variants ?? current.variants), updatedAt: now })
      .where(and(eq(vocabularyTerms.userId, userId), eq(vocabularyTerms.id, id)))
      .returning();
    return updated;
  });
}

/** Deletes one of the account's terms; false when it has no such term. */
export function deleteTerm(c: Conn, userId: string, id: number): Promise<boolean> {
  return run(c, async (q) => {
    const deleted = await q
      .delete(vocabularyTerms)
      .where(and(eq(vocabularyTerms.userId, userId), eq(vocabularyTerms.id, id)))
      .returning({ id: vocabularyTerms.id });
    return deleted.length > 0;
  });
}
