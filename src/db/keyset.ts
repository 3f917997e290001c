import { and, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/** Where a row stands in a newest-first list: [created_at ms, id]. Cursors encode it. */
export type SortKey = [number, string | number];

/** Rows strictly after `after` in newest-first order: (created_at, id) descending. */
export function newestFirstAfter(createdAt: SQLiteColumn, id: SQLiteColumn, after: SortKey | undefined): SQL | undefined {
  if (!after) return undefined;
  const [at, key] = after;
  return or(lt(createdAt, at), and(eq(createdAt, at), lt(id, key)));
}
