import { and, asc, count, desc, eq, gt, gte, inArray, like, lt, or, type SQL } from "drizzle-orm";
import { run, runTx, type Conn } from "../db/conn.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { auditEntries, auditPurgeCutoff } from "./table.ts";
import type { AuditDetail, AuditEntry } from "./types.ts";

/** An entry as stored: its id and time. */
export interface AuditRow extends Omit<AuditEntry, "detail"> {
  id: number;
  at: number;
  detail: AuditDetail | null;
}

/** An entry with the time it happened (the trail stamps it when recorded, not when written). */
export type TimedAuditEntry = AuditEntry & { at?: number };

/** Rows per INSERT: 12 values each, well inside SQLite's and PostgreSQL's bound on parameters. */
const INSERT_BATCH = 200;
/** A detail string longer than this is cut: details are ids, counts and kinds, never text. */
const DETAIL_STRING_MAX = 200;
const DETAIL_KEYS_MAX = 20;

/** A detail kept to small scalars, so a careless caller cannot put content in the trail. */
function detailText(detail: AuditDetail | undefined): string | null {
  if (!detail) return null;
  const kept: AuditDetail = {};
  for (const [key, value] of Object.entries(detail).slice(0, DETAIL_KEYS_MAX)) {
    if (value === null || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) kept[key.slice(0, 64)] = value;
    else if (typeof value === "string") kept[key.slice(0, 64)] = value.slice(0, DETAIL_STRING_MAX);
  }
  return Object.keys(kept).length ? JSON.stringify(kept) : null;
}

function detailOf(text: string | null): AuditDetail | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as AuditDetail;
  } catch {
    return null;
  }
}

type Stored = typeof auditEntries.$inferSelect;

function rowOf(stored: Stored): AuditRow {
  return { ...stored, detail: detailOf(stored.detail) };
}

/** Appends entries (each at its own `at`, else `now`), in as many statements as their number needs. */
export function appendAuditEntries(c: Conn, entries: readonly TimedAuditEntry[], now: number): Promise<void> {
  if (entries.length === 0) return Promise.resolve();
  const values = entries.map((entry) => ({
    at: entry.at ?? now,
    accountId: entry.accountId,
    actorUserId: entry.actorUserId,
    credentialType: entry.credentialType,
    credentialId: entry.credentialId,
    channel: entry.channel,
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    clientAddress: entry.clientAddress,
    detail: detailText(entry.detail),
  }));
  return runTx(c, async (q) => {
    for (let i = 0; i < values.length; i += INSERT_BATCH) await q.insert(auditEntries).values(values.slice(i, i + INSERT_BATCH));
  });
}

/** What a list of entries may be narrowed to. */
export interface AuditFilter {
  /** One account's entries (the Activity page); absent: every account's (the admin console). */
  accountId?: string;
  /** Actions of these kinds: an action's first word ("transcript", "auth"). */
  kinds?: readonly string[];
  /** Exact action names. */
  actions?: readonly string[];
  resourceId?: string;
  /** From this time (ms), inclusive. */
  since?: number;
  /** Before this time (ms), exclusive. */
  until?: number;
}

function filterClause(filter: AuditFilter): SQL | undefined {
  return and(
    filter.accountId !== undefined ? eq(auditEntries.accountId, filter.accountId) : undefined,
    filter.kinds?.length ? or(...filter.kinds.map((kind) => like(auditEntries.action, `${kind}.%`))) : undefined,
    filter.actions?.length ? inArray(auditEntries.action, [...filter.actions]) : undefined,
    filter.resourceId !== undefined ? eq(auditEntries.resourceId, filter.resourceId) : undefined,
    filter.since !== undefined ? gte(auditEntries.at, filter.since) : undefined,
    filter.until !== undefined ? lt(auditEntries.at, filter.until) : undefined,
  );
}

/** A page of entries and where the next one starts (null: none follows). */
export interface AuditPage {
  data: AuditRow[];
  /** The (at, id) of the page's last entry when more follow: pass it back as `after`. */
  next: [number, number] | null;
}

/**
 * Entries matching `filter`, newest first, `limit` at a time, keyset on (at, id): strictly after
 * `after` when given. audit/ sits below http/ (auth/ records into it, and http/ imports auth/), so
 * the caller turns `next` into its cursor (http/pagination.ts encodeCursor).
 */
export function listAuditEntries(c: Conn, filter: AuditFilter, page: { limit: number; after?: [number, number] }): Promise<AuditPage> {
  const where = filterClause(filter);
  return run(c, async (q) => {
    const fetched = await q
      .select()
      .from(auditEntries)
      .where(and(where, newestFirstAfter(auditEntries.at, auditEntries.id, page.after)))
      .orderBy(desc(auditEntries.at), desc(auditEntries.id))
      .limit(page.limit + 1);
    const rows = fetched.slice(0, page.limit).map(rowOf);
    const last = rows[rows.length - 1];
    return { data: rows, next: fetched.length > page.limit && last ? [last.at, last.id] : null };
  });
}

/**
 * Entries matching `filter`, oldest first, read `batchSize` rows per query (keyset on (at, id)), so
 * an export of years of entries never holds more than one batch in memory.
 */
export async function* exportAuditEntries(c: Conn, filter: AuditFilter, batchSize = 1000): AsyncGenerator<AuditRow> {
  const where = filterClause(filter);
  let after: [number, number] | undefined;
  for (;;) {
    const cursor = after;
    const batch = await run(c, async (q) =>
      await q
        .select()
        .from(auditEntries)
        .where(and(where, cursor ? or(gt(auditEntries.at, cursor[0]), and(eq(auditEntries.at, cursor[0]), gt(auditEntries.id, cursor[1]))) : undefined))
        .orderBy(asc(auditEntries.at), asc(auditEntries.id))
        .limit(batchSize),
    );
    for (const stored of batch) yield rowOf(stored);
    if (batch.length < batchSize) return;
    const last = batch[batch.length - 1]!;
    after = [last.at, last.id];
  }
}

/**
 * The trail's retention: deletes the entries older than `cutoff` (ms) and answers how many. The
 * append-only triggers let a DELETE through only for rows older than the cutoff this transaction
 * sets, and it is set back to 0 before the commit: no other statement can delete an entry.
 */
export function purgeAuditEntries(c: Conn, cutoff: number): Promise<number> {
  return runTx(c, async (q) => {
    const old = lt(auditEntries.at, cutoff);
    const [found] = await q.select({ n: count() }).from(auditEntries).where(old);
    if (!found?.n) return 0;
    await q.insert(auditPurgeCutoff).values({ id: 1, cutoff }).onConflictDoUpdate({ target: auditPurgeCutoff.id, set: { cutoff } });
    await q.delete(auditEntries).where(old);
    await q.update(auditPurgeCutoff).set({ cutoff: 0 }).where(eq(auditPurgeCutoff.id, 1));
    return found.n;
  });
}
