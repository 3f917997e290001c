import { and, asc, desc, eq, gt, gte, inArray, lt, not, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { findClientByIdOrName } from "../clients/service.ts";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { paginateAsync } from "../http/pagination.ts";
import { isPostgres } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import { renderMeetings } from "./render.ts";
import { loadExtras } from "./store.ts";
import type { listMeetingsQuery } from "./schema.ts";
import { ftsQuery, tsQuery } from "./search-index.ts";
import { heldCondition } from "./legal-hold-store.ts";
import { meetings, meetingTags } from "./table.ts";

/** SPEC 4: filtering on status looks only at this many of the most recent meetings. */
export const STATUS_SCAN_LIMIT = 500;

/**
 * The web app's list orders (issue 25): by recorded date, newest or oldest first, or by title. The
 * API's list (and the web app's without one) is newest created first ("created").
 */
export const MEETING_ORDERS = ["newest", "oldest", "title"] as const;
export type MeetingOrder = "created" | (typeof MEETING_ORDERS)[number];

/** GET /v1/meetings: every filter combined with AND, newest first (or in `order`), one page. */
export async function listMeetings(db: Queryable, userId: string, query: z.output<typeof listMeetingsQuery>, publicApiUrl: string, order: MeetingOrder = "created") {
  const conditions: (SQL | undefined)[] = [eq(meetings.userId, userId)];
  const empty = { data: [], has_more: false, next_cursor: null };

  if (query.client !== undefined) {
    const client = await findClientByIdOrName(db, userId, query.client);
    if (!client) return empty;
    conditions.push(eq(meetings.clientId, client.id));
  }
  if (query.created_after) conditions.push(gte(meetings.createdAt, Date.parse(query.created_after)));
  if (query.created_before) conditions.push(lt(meetings.createdAt, Date.parse(query.created_before)));
  if (query.recorded_after) conditions.push(gte(meetings.recordedAt, Date.parse(query.recorded_after)));
  if (query.recorded_before) conditions.push(lt(meetings.recordedAt, Date.parse(query.recorded_before)));
  if (query.on_hold !== undefined) conditions.push(query.on_hold ? heldCondition() : not(heldCondition()));
  for (const tag of new Set(query.tag ?? [])) {
    conditions.push(sql`EXISTS (SELECT 1 FROM ${meetingTags} WHERE ${meetingTags.meetingId} = ${meetings.id} AND ${meetingTags.tag} = ${tag})`);
  }
  if (query.q !== undefined) {
    const search = searchCondition(db, query.q);
    if (!search) return empty;
    conditions.push(search);
  }
  if (query.status !== undefined) {
    const recent = (
      await db
        .select({ id: meetings.id })
        .from(meetings)
        .where(eq(meetings.userId, userId))
        .orderBy(desc(meetings.createdAt), desc(meetings.id))
        .limit(STATUS_SCAN_LIMIT)
    ).map((r) => r.id);
    if (!recent.length) return empty;
    conditions.push(eq(meetings.status, query.status), inArray(meetings.id, recent));
  }

  if (order !== "created") return orderedPage(db, conditions, query, order, publicApiUrl);
  return paginateAsync(
    query,
    (after, take) =>
      db
        .select()
        .from(meetings)
        .where(and(...conditions, newestFirstAfter(meetings.createdAt, meetings.id, after)))
        .orderBy(desc(meetings.createdAt), desc(meetings.id))
        .limit(take),
    (row) => [row.createdAt, row.id],
    async (rows) => renderMeetings(rows, await loadExtras(db, rows), publicApiUrl),
  );
}

const orderedCursor = z.object({ o: z.enum(MEETING_ORDERS), k: z.tuple([z.union([z.number().int(), z.string().max(2000)]), z.string().max(100)]) });

/**
 * One page of the web app's list in another order than the API's: keyset pagination as the API's
 * (no offsets), its cursor carrying the order's key, [recorded_at, id] or [title, id]. Titles
 * compare without ASCII case, by the database on both sides of the comparison.
 */
async function orderedPage(db: Queryable, conditions: (SQL | undefined)[], query: z.output<typeof listMeetingsQuery>, order: Exclude<MeetingOrder, "created">, publicApiUrl: string) {
  let after: [number | string, string] | undefined;
  if (query.cursor !== undefined) {
    try {
      const parsed = orderedCursor.parse(JSON.parse(Buffer.from(query.cursor, "base64url").toString("utf8")));
      if (parsed.o !== order) throw new Error("another order's cursor");
      after = parsed.k;
    } catch {
      throw ApiError.validation([{ field: "cursor", code: "invalid_value", message: "This cursor is not one the service issued; pass next_cursor unchanged." }]);
    }
  }
  const title = sql`lower(${meetings.title})`;
  const key: SQL = order === "title" ? title : sql`${meetings.recordedAt}`;
  let past: SQL | undefined;
  if (after) {
    const [value, id] = after;
    const at = order === "title" ? sql`lower(${String(value)})` : Number(value);
    past = order === "newest" ? or(lt(key, at), and(eq(key, at), lt(meetings.id, id))) : or(gt(key, at), and(eq(key, at), gt(meetings.id, id)));
  }
  const direction = order === "newest" ? desc : asc;
  const rows = await db
    .select()
    .from(meetings)
    .where(and(...conditions, past))
    .orderBy(direction(key), direction(meetings.id))
    .limit(query.limit + 1);
  const hasMore = rows.length > query.limit;
  const page = hasMore ? rows.slice(0, query.limit) : rows;
  const last = page[page.length - 1];
  const next = hasMore && last ? Buffer.from(JSON.stringify({ o: order, k: [order === "title" ? last.title : last.recordedAt, last.id] })).toString("base64url") : null;
  return { data: renderMeetings(page, await loadExtras(db, page), publicApiUrl), has_more: hasMore, next_cursor: next };
}

/**
 * The meetings the search words find in the full-text index (search-index-store.ts), or null when
 * q holds no word: SQLite's FTS5 table, or PostgreSQL's tsvector column (GIN-indexed) with the
 * same words, prefixes and accents folded (search-index.ts).
 */
function searchCondition(db: Queryable, q: string): SQL | null {
  if (isPostgres(db)) {
    const query = tsQuery(q);
    return query ? sql`${meetings.id} IN (SELECT meeting_id FROM meetings_fts WHERE document @@ to_tsquery('simple', unaccent(${query}::text)))` : null;
  }
  const match = ftsQuery(q);
  return match ? sql`${meetings.id} IN (SELECT meeting_id FROM meetings_fts WHERE meetings_fts MATCH ${match})` : null;
}

/** listMeetings over a `Conn`. */
export function meetingsPage(c: Conn, userId: string, query: z.output<typeof listMeetingsQuery>, publicApiUrl: string, order: MeetingOrder = "created"): ReturnType<typeof listMeetings> {
  return run(c, (q) => listMeetings(q, userId, query, publicApiUrl, order));
}

/** Every meeting id of every account (the start-up sweep keeps only their folders). */
export function allMeetingIds(c: Conn): Promise<Set<string>> {
  return run(c, async (q) => new Set((await q.select({ id: meetings.id }).from(meetings)).map((r) => r.id)));
}
