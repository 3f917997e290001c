import { z } from "zod";
import { ApiError } from "../errors/api-error.ts";

/**
 * Keyset pagination. A cursor is the sort key of the last row served, encoded as opaque
 * base64url JSON: stable under inserts (no offsets), so pages have no duplicates or gaps.
 */
import type { SortKey } from "../db/keyset.ts";

export type { SortKey };

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify({ v: 1, k: key })).toString("base64url");
}

const cursorShape = z.object({ v: z.literal(1), k: z.tuple([z.number().int(), z.union([z.string().max(200), z.number().int()])]) });

export function decodeCursor(cursor: string): SortKey {
  try {
    if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw new Error("not base64url");
    const parsed = cursorShape.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return parsed.k as SortKey;
  } catch {
    throw ApiError.validation([
      { field: "cursor", code: "invalid_value", message: "This cursor is not one the service issued; pass next_cursor unchanged." },
    ]);
  }
}

/** limit (1 to 100) and cursor, as every paginated list takes them. */
export function paginationQuery(defaultLimit = 20) {
  return {
    limit: z.coerce.number().int().min(1).max(100).default(defaultLimit),
    cursor: z.string().optional(),
  };
}

/**
 * Runs `fetch` for one row more than asked, to learn whether another page follows, then renders
 * the page's rows at once (so related rows can be loaded for the whole page, not row by row).
 * `fetch` receives the key to continue after (undefined on the first page).
 */
export function paginate<Row, Out>(
  input: { limit: number; cursor?: string },
  fetch: (after: SortKey | undefined, take: number) => Row[],
  keyOf: (row: Row) => SortKey,
  renderPage: (rows: Row[]) => Out[],
): Page<Out> {
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  const rows = fetch(after, input.limit + 1);
  const hasMore = rows.length > input.limit;
  const pageRows = hasMore ? rows.slice(0, input.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: renderPage(pageRows),
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() });
}
