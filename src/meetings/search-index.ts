import { ApiError } from "../errors/api-error.ts";

/* The search words to the index's query; the index's rows are written by search-index-store.ts. */

/** More words than this in q is a validation error: each word is one more index scan. */
export const MAX_SEARCH_TERMS = 12;

/** A word, as SQLite's unicode61 tokenizer cuts text into tokens: a run of letters and digits. */
const WORD = /[\p{L}\p{N}]+/gu;

/** The user's search words; more than MAX_SEARCH_TERMS is a 400 on q. */
function searchWords(q: string): string[] {
  const words = q.match(WORD) ?? [];
  if (words.length > MAX_SEARCH_TERMS) {
    throw ApiError.validation([
      { field: "q", code: "too_many_terms", message: `Search with at most ${MAX_SEARCH_TERMS} words; q has ${words.length}.` },
    ]);
  }
  return words;
}

/** A one-letter word is matched whole, never as a prefix (see ftsQuery). */
const isPrefix = (word: string) => [...word].length > 1;

/**
 * A user's search words to an FTS5 query: each word quoted (so operators and quotes in the
 * input are plain text) and matched as a prefix, all words required. A one-letter word is matched
 * whole, never as a prefix: "a*" would expand to every indexed term starting with a, across every
 * account's meetings, and one such query could hold the server for seconds.
 */
export function ftsQuery(q: string): string | null {
  const words = searchWords(q);
  if (!words.length) return null;
  return words.map((w) => (isPrefix(w) ? `"${w}"*` : `"${w}"`)).join(" AND ");
}

/**
 * The same words as ftsQuery, as a PostgreSQL tsquery (for `to_tsquery('simple', unaccent(…))`):
 * every word required (&), a prefix (:*) from two characters on, each quoted as a lexeme so no
 * character of it is read as an operator (a word holds only letters and digits; quotes and
 * backslashes are escaped all the same).
 */
export function tsQuery(q: string): string | null {
  const words = searchWords(q);
  if (!words.length) return null;
  return words.map((w) => `'${w.replace(/\\/g, "\\\\").replace(/'/g, "''")}'${isPrefix(w) ? ":*" : ""}`).join(" & ");
}

/**
 * The text PostgreSQL's index is built from: the words of title, report and transcript cut as
 * unicode61 cuts them (and as searchWords cuts a query), one space apart. PostgreSQL's own
 * parser would keep "jean@example.com" or "v1.2" whole, where SQLite finds "example" or "2":
 * cutting here first gives both dialects the same tokens.
 */
export function indexText(...parts: string[]): string {
  return parts.flatMap((part) => part.match(WORD) ?? []).join(" ");
}
