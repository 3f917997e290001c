import { describe, expect, test } from "bun:test";
import { decodeCursor, paginate, paginateAsync, type SortKey } from "./pagination.ts";

const rows = Array.from({ length: 5 }, (_, i) => ({ at: 100 - i, id: `r${i}` }));
const keyOf = (row: { at: number; id: string }): SortKey => [row.at, row.id];
const fetch = (after: SortKey | undefined, take: number) => rows.filter((r) => !after || r.at < after[0]).slice(0, take);

describe("paginate and paginateAsync", () => {
  test("the same pages and cursors from a sync and an async store", async () => {
    const first = paginate({ limit: 2 }, fetch, keyOf, (page) => page.map((r) => r.id));
    expect(first).toMatchObject({ data: ["r0", "r1"], has_more: true });
    expect(decodeCursor(first.next_cursor!)).toEqual([99, "r1"]);
    const asyncFirst = await paginateAsync({ limit: 2 }, async (after, take) => fetch(after, take), keyOf, async (page) => page.map((r) => r.id));
    expect(asyncFirst).toEqual(first);
    const last = await paginateAsync({ limit: 2, cursor: first.next_cursor! }, async (after, take) => fetch(after, take), keyOf, (page) => page.map((r) => r.id));
    expect(last.data).toEqual(["r2", "r3"]);
    const end = paginate({ limit: 10 }, fetch, keyOf, (page) => page.map((r) => r.id));
    expect(end).toEqual({ data: ["r0", "r1", "r2", "r3", "r4"], has_more: false, next_cursor: null });
  });

  test("a cursor the service did not issue is refused before the store is asked", async () => {
    let asked = false;
    const store = async () => {
      asked = true;
      return [];
    };
    await expect(paginateAsync({ limit: 2, cursor: "not a cursor!" }, store, keyOf, (page) => page)).rejects.toMatchObject({ status: 400 });
    expect(asked).toBe(false);
  });
});

