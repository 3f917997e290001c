import { eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { meetings, reports, transcripts } from "./table.ts";

/**
 * Rewrites a meeting's row of the full-text index from its title, report and transcript.
 * Called whenever one of them changes, inside the same transaction; cheap next to producing any of them.
 */
export function reindexMeeting(db: Queryable, meetingId: string): void {
  const row = db
    .select({ title: meetings.title, report: reports.markdown, segments: transcripts.segments })
    .from(meetings)
    .leftJoin(reports, eq(reports.meetingId, meetings.id))
    .leftJoin(transcripts, eq(transcripts.meetingId, meetings.id))
    .where(eq(meetings.id, meetingId))
    .get();
  db.run(sql`DELETE FROM meetings_fts WHERE meeting_id = ${meetingId}`);
  if (!row) return;
  const { title, report } = row;
  const transcript = row.segments ? row.segments.map((s) => s.text).join("\n") : "";
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
