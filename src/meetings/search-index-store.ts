import { eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { exec, isPostgres } from "../db/sql.ts";
import { indexText } from "./search-index.ts";
import { meetings, reports, transcripts } from "./table.ts";

/**
 * Rewrites a meeting's row of the full-text index from its title, report and transcript.
 * Called whenever one of them changes, inside the same transaction; cheap next to producing any of them.
 * SQLite: an FTS5 table of the three texts. PostgreSQL: one tsvector of their words, unaccented
 * (search-index.ts's indexText cuts them as FTS5 does; list-store.ts searches it with tsQuery).
 */
export async function reindexMeeting(db: Queryable, meetingId: string): Promise<void> {
  const row = (
    await db
      .select({ title: meetings.title, report: reports.markdown, segments: transcripts.segments })
      .from(meetings)
      .leftJoin(reports, eq(reports.meetingId, meetings.id))
      .leftJoin(transcripts, eq(transcripts.meetingId, meetings.id))
      .where(eq(meetings.id, meetingId))
      .limit(1)
  )[0];
  await removeFromIndex(db, meetingId);
  if (!row) return;
  const { title } = row;
  const report = row.report ?? "";
  const transcript = row.segments ? row.segments.map((s) => s.text).join("\n") : "";
  if (isPostgres(db)) {
    const words = indexText(title, report, transcript);
    await exec(db, sql`INSERT INTO meetings_fts (meeting_id, document) VALUES (${meetingId}, to_tsvector('simple', unaccent(${words}::text)))`);
  } else {
    await exec(db, sql`INSERT INTO meetings_fts (meeting_id, title, report, transcript) VALUES (${meetingId}, ${title}, ${report}, ${transcript})`);
  }
}

export async function removeFromIndex(db: Queryable, meetingId: string): Promise<void> {
  await exec(db, sql`DELETE FROM meetings_fts WHERE meeting_id = ${meetingId}`);
}
