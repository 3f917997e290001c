import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { isPostgres, row, rows } from "../db/sql.ts";
import { jobs } from "../jobs/table.ts";
import { ftsQuery, tsQuery } from "./search-index.ts";
import { meetings, meetingTags, reports, transcripts } from "./table.ts";

/*
 * What the web app's meetings list shows beside each meeting (issue 25 item 6): why a failed one
 * failed, and where the search words were found. Read for one page of rows at a time.
 */

/** Marks around a search match in a snippet; the page splits on them and renders <mark> (never HTML from the store). */
export const MATCH_START = "\u0002";
export const MATCH_END = "\u0003";

/** The newest failed job's error code of each meeting given (none for a meeting whose jobs carry no code). */
export function failureCodes(c: Conn, meetingIds: readonly string[]): Promise<Map<string, string>> {
  return run(c, async (q) => {
    const codes = new Map<string, string>();
    if (!meetingIds.length) return codes;
    const failed = await q
      .select({ meetingId: jobs.meetingId, code: jobs.errorCode })
      .from(jobs)
      .where(and(inArray(jobs.meetingId, [...meetingIds]), eq(jobs.status, "failed"), isNotNull(jobs.errorCode)))
      .orderBy(desc(jobs.createdAt));
    for (const job of failed) if (job.meetingId && job.code && !codes.has(job.meetingId)) codes.set(job.meetingId, job.code);
    return codes;
  });
}

/** Each meeting's tags (bulk tagging adds one to them). */
export function tagsOf(c: Conn, meetingId: string): Promise<string[]> {
  return run(c, async (q) => (await q.select({ tag: meetingTags.tag }).from(meetingTags).where(eq(meetingTags.meetingId, meetingId))).map((r) => r.tag));
}

/**
 * A few words around where `q` matched each meeting given, the matches between MATCH_START and
 * MATCH_END: SQLite's FTS5 snippet() over the index's title, report and transcript columns;
 * PostgreSQL's ts_headline() over the same texts (its index keeps only their words). A meeting
 * whose match is in no text the snippet can show (none) is left out.
 */
export function searchSnippets(c: Conn, meetingIds: readonly string[], q: string): Promise<Map<string, string>> {
  return run(c, async (db) => {
    const found = new Map<string, string>();
    if (!meetingIds.length) return found;
    if (isPostgres(db)) await postgresSnippets(db, meetingIds, q, found);
    else {
      const match = ftsQuery(q);
      if (!match) return found;
      const ids = sql.join(
        meetingIds.map((id) => sql`${id}`),
        sql`, `,
      );
      const snippets = await rows<{ id: string; text: string }>(
        db,
        sql`SELECT meeting_id AS id, snippet(meetings_fts, -1, ${MATCH_START}, ${MATCH_END}, '…', 16) AS text FROM meetings_fts WHERE meetings_fts MATCH ${match} AND meeting_id IN (${ids})`,
      );
      for (const hit of snippets) if (hit.text.includes(MATCH_START)) found.set(hit.id, hit.text);
    }
    return found;
  });
}

async function postgresSnippets(db: Queryable, meetingIds: readonly string[], q: string, found: Map<string, string>) {
  const query = tsQuery(q);
  if (!query) return;
  const texts = await db
    .select({ id: meetings.id, title: meetings.title, report: reports.markdown, segments: transcripts.segments })
    .from(meetings)
    .leftJoin(reports, eq(reports.meetingId, meetings.id))
    .leftJoin(transcripts, eq(transcripts.meetingId, meetings.id))
    .where(inArray(meetings.id, [...meetingIds]));
  const options = `StartSel=${MATCH_START}, StopSel=${MATCH_END}, MaxWords=24, MinWords=10, MaxFragments=1, FragmentDelimiter=" … "`;
  for (const meeting of texts) {
    // The transcript first: it is what a search most often means; then the report, then the title.
    for (const text of [meeting.segments ? meeting.segments.map((s) => s.text).join("\n") : "", meeting.report ?? "", meeting.title]) {
      if (!text) continue;
      const headline = await row<{ text: string }>(db, sql`SELECT ts_headline('simple', ${text}::text, to_tsquery('simple', unaccent(${query}::text)), ${options}::text) AS text`);
      if (headline?.text.includes(MATCH_START)) {
        found.set(meeting.id, headline.text);
        break;
      }
    }
  }
}
