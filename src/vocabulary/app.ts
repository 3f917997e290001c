import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { numericId, parseNumericId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { toRfc3339 } from "../lib/time.ts";
import type { CreateTermBody, PatchTermBody } from "./schema.ts";
import { createTerm, deleteTerm, listTerms, updateTerm, type TermRow } from "./store.ts";

export { createTermBody, patchTermBody, MAX_TERMS, MAX_TERM_CHARS, MAX_VARIANTS, MAX_MEETING_TERMS } from "./schema.ts";
export type { TermRow } from "./store.ts";

/** The API's (and the web app's) shape of a term. */
export function renderTerm(row: TermRow) {
  return {
    id: numericId("voc", row.id),
    object: "vocabulary_term" as const,
    term: row.term,
    variants: row.variants,
    created_at: toRfc3339(row.createdAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}
export type RenderedTerm = ReturnType<typeof renderTerm>;

/**
 * The account glossary's use cases, for /v1/vocabulary and the web app's Settings, Vocabulary.
 * A term id that is malformed, unknown or another account's is 404 alike.
 */
export function vocabularyApp(deps: { conn: Conn; clock: Clock }) {
  const idOf = (termId: string): number => {
    const id = parseNumericId("voc", termId);
    if (id === null) throw ApiError.notFound(`Term ${termId.slice(0, 40)}`);
    return id;
  };
  return {
    list(actor: Actor): Promise<TermRow[]> {
      return listTerms(deps.conn, actor.account.userId);
    },

    create(actor: Actor, body: CreateTermBody): Promise<TermRow> {
      return createTerm(deps.conn, actor.account.userId, body, deps.clock.now());
    },

    async update(actor: Actor, termId: string, patch: PatchTermBody): Promise<TermRow> {
      const updated = await updateTerm(deps.conn, actor.account.userId, idOf(termId), patch, deps.clock.now());
      if (!updated) throw ApiError.notFound(`Term ${termId}`);
      return updated;
    },

    async delete(actor: Actor, termId: string): Promise<void> {
      if (!(await deleteTerm(deps.conn, actor.account.userId, idOf(termId)))) throw ApiError.notFound(`Term ${termId}`);
    },
  };
}

export type VocabularyApp = ReturnType<typeof vocabularyApp>;
