import { and, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { SortKey } from "../http/pagination.ts";

/** Rows strictly after `after` in newest-first order: (created_at, id) descending. */
export function newestFirstAfter(createdAt: SQLiteColumn, id: SQLiteColumn, after: SortKey | undefined): SQL | undefined {
  if (!after) return undefined;
  const [at, key] = after;
  return or(lt(createdAt, at), and(eq(createdAt, at), lt(id, key)));
}
