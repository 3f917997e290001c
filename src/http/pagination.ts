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
  const { rows, has_more, next_cursor } = cut(input, fetch(afterOf(input), input.limit + 1), keyOf);
  return { data: renderPage(rows), has_more, next_cursor };
}

/** paginate over an async store: `fetch` (and `renderPage`, when it loads related rows) answer promises. */
export async function paginateAsync<Row, Out>(
  input: { limit: number; cursor?: string },
  fetch: (after: SortKey | undefined, take: number) => Promise<Row[]>,
  keyOf: (row: Row) => SortKey,
  renderPage: (rows: Row[]) => Out[] | Promise<Out[]>,
): Promise<Page<Out>> {
  const { rows, has_more, next_cursor } = cut(input, await fetch(afterOf(input), input.limit + 1), keyOf);
  return { data: await renderPage(rows), has_more, next_cursor };
}

function afterOf(input: { cursor?: string }): SortKey | undefined {
  return input.cursor === undefined ? undefined : decodeCursor(input.cursor);
}

/** The page's rows out of `limit + 1` fetched, and the cursor to the next page if one follows. */
function cut<Row>(input: { limit: number }, fetched: Row[], keyOf: (row: Row) => SortKey) {
  const hasMore = fetched.length > input.limit;
  const rows = hasMore ? fetched.slice(0, input.limit) : fetched;
  const last = rows[rows.length - 1];
  return { rows, has_more: hasMore, next_cursor: hasMore && last !== undefined ? encodeCursor(keyOf(last)) : null };
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() });
}
