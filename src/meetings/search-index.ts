import { sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";

/**
 * Rewrites a meeting's row of the full-text index from its title, report and transcript.
 * Called whenever one of them changes, inside the same transaction; cheap next to producing any of them.
 */
export function reindexMeeting(db: Queryable, meetingId: string): void {
  const [row] = db.values<[string, string | null, string | null]>(
    sql`SELECT m.title, s.markdown, t.segments
          FROM meetings m
          LEFT JOIN reports s ON s.meeting_id = m.id
          LEFT JOIN transcripts t ON t.meeting_id = m.id
         WHERE m.id = ${meetingId}`,
  );
  db.run(sql`DELETE FROM meetings_fts WHERE meeting_id = ${meetingId}`);
  if (!row) return;
  const [title, report, segments] = row;
  const transcript = segments ? (JSON.parse(segments) as { text: string }[]).map((s) => s.text).join("\n") : "";
  db.run(sql`INSERT INTO meetings_fts (meeting_id, title, report, transcript) VALUES (${meetingId}, ${title}, ${report ?? ""}, ${transcript})`);
}

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

export function removeFromIndex(db: Queryable, meetingId: string): void {
  db.run(sql`DELETE FROM meetings_fts WHERE meeting_id = ${meetingId}`);
}
