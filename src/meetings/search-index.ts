import { ApiError } from "../errors/api-error.ts";

/* The search words to the index's query; the index's rows are written by search-index-store.ts. */

/** More words than this in q is a validation error: each word is one more index scan. */
export const MAX_SEARCH_TERMS = 12;

/**
 * A user's search words to an FTS5 query: each word quoted (so operators and quotes in the
 * input are plain text) and matched as a prefix, all words required. A one-letter word is matched
 * whole, never as a prefix: "a*" would expand to every indexed term starting with a, across every
 * account's meetings, and one such query could hold the server for seconds.
 */
export function ftsQuery(q: string): string | null {
  const words = q.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (!words.length) return null;
  if (words.length > MAX_SEARCH_TERMS) {
    throw ApiError.validation([
      { field: "q", code: "too_many_terms", message: `Search with at most ${MAX_SEARCH_TERMS} words; q has ${words.length}.` },
    ]);
  }
  return words.map((w) => ([...w].length > 1 ? `"${w}"*` : `"${w}"`)).join(" AND ");
}
