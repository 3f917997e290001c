import { eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
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

export function removeFromIndex(db: Queryable, meetingId: string): void {
  db.run(sql`DELETE FROM meetings_fts WHERE meeting_id = ${meetingId}`);
}
