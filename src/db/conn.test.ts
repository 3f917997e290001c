import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openConn, run, runTx, withTx, type Conn } from "./conn.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-conn-"));
const db = openConn(join(dir, "conn.db"));
db.sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)");
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (c: Conn, v: string) => run(c, (q) => q.run(sql`INSERT INTO t (v) VALUES (${v})`));
const values = (c: Conn) => run(c, (q) => q.all<{ v: string }>(sql`SELECT v FROM t ORDER BY id`).map((r) => r.v));
const has = async (v: string) => (await values(db)).includes(v);

describe("withTx", () => {
  test("commits what its body wrote when the body resolves", async () => {
    await withTx(db, async (tx) => {
      await insert(tx, "committed-1");
      await insert(tx, "committed-2");
    });
    expect(await has("committed-1")).toBe(true);
    expect(await has("committed-2")).toBe(true);
  });

  test("rolls back every write when the body throws after an await", async () => {
    await expect(
      withTx(db, async (tx) => {
        await insert(tx, "rolled-back-1");
        await Bun.sleep(5);
        await insert(tx, "rolled-back-2");
        throw new Error("the use case refused");
      }),
    ).rejects.toThrow("the use case refused");
    expect(await has("rolled-back-1")).toBe(false);
    expect(await has("rolled-back-2")).toBe(false);
  });

  test("rolls back when a statement inside fails, and the connection is usable after", async () => {
    await insert(db, "unique-once");
    await expect(
      withTx(db, async (tx) => {
        await insert(tx, "before-the-failure");
        await insert(tx, "unique-once");
      }),
    ).rejects.toThrow();
    expect(await has("before-the-failure")).toBe(false);
    await insert(db, "after-the-failure");
    expect(await has("after-the-failure")).toBe(true);
  });

  test("another caller's statement waits for the open transaction instead of joining it", async () => {
    let releaseBody!: () => void;
    const bodyMayEnd = new Promise<void>((resolve) => (releaseBody = resolve));
    const transaction = withTx(db, async (tx) => {
      await insert(tx, "inside-the-failing-tx");
      await bodyMayEnd;
      throw new Error("rolled back after the outsider queued");
    });
    await Bun.sleep(5);
    // Written while the transaction is open: it must neither run inside it (and roll back with it)
    // nor see its uncommitted row.
    const outsider = insert(db, "outsider");
    const seen = values(db);
    releaseBody();
    await expect(transaction).rejects.toThrow("rolled back");
    await outsider;
    expect(await seen).not.toContain("inside-the-failing-tx");
    expect(await has("outsider")).toBe(true);
    expect(await has("inside-the-failing-tx")).toBe(false);
  });

  test("two transactions run one after the other, in arrival order", async () => {
    const order: string[] = [];
    const first = withTx(db, async (tx) => {
      order.push("first begins");
      await Bun.sleep(10);
      await insert(tx, "first");
      order.push("first ends");
    });
    const second = withTx(db, async (tx) => {
      order.push("second begins");
      await insert(tx, "second");
      order.push("second ends");
    });
    await Promise.all([first, second]);
    expect(order).toEqual(["first begins", "first ends", "second begins", "second ends"]);
  });

  test("using the database (not the transaction) inside a transaction is refused, not deadlocked", async () => {
    await expect(
      withTx(db, async () => {
        await insert(db, "through-the-root");
      }),
    ).rejects.toThrow("pass the transaction");
    expect(await has("through-the-root")).toBe(false);
  });

  test("a transaction used after it ended is refused", async () => {
    let leaked!: Conn;
    await withTx(db, async (tx) => {
      leaked = tx;
    });
    await expect(insert(leaked, "late")).rejects.toThrow("already ended");
  });

  test("a nested withTx is a savepoint: its failure rolls back only its own writes", async () => {
    await withTx(db, async (tx) => {
      await insert(tx, "outer-kept");
      await expect(
        withTx(tx, async (inner) => {
          await insert(inner, "inner-dropped");
          throw new Error("inner refused");
        }),
      ).rejects.toThrow("inner refused");
    });
    expect(await has("outer-kept")).toBe(true);
    expect(await has("inner-dropped")).toBe(false);
  });
});

describe("runTx", () => {
  /** A synchronous body that writes `v`, then throws. */
  const writeThenThrow = (c: Conn, v: string) =>
    runTx(c, (q) => {
      q.run(sql`INSERT INTO t (v) VALUES (${v})`);
      throw new Error(`${v} refused`);
    });

  test("a synchronous body that throws rolls back, alone or inside a transaction", async () => {
    await expect(writeThenThrow(db, "sync-dropped")).rejects.toThrow("sync-dropped refused");
    expect(await has("sync-dropped")).toBe(false);
    await withTx(db, async (tx) => {
      await insert(tx, "outer-of-sync");
      await expect(writeThenThrow(tx, "nested-sync-dropped")).rejects.toThrow("nested-sync-dropped refused");
    });
    expect(await has("outer-of-sync")).toBe(true);
    expect(await has("nested-sync-dropped")).toBe(false);
  });
});

test("connOf gives one Conn per connection, so every wrapper shares one queue", async () => {
  const { connOf } = await import("./conn.ts");
  expect(connOf(db.drizzle)).toBe(db);
  let release!: () => void;
  const open = withTx(connOf(db.drizzle), async (tx) => {
    await insert(tx, "one-queue-tx");
    await new Promise<void>((resolve) => (release = resolve));
    throw new Error("rolled back");
  });
  await Bun.sleep(5);
  const outsider = insert(connOf(db.drizzle), "one-queue-outsider");
  release();
  await expect(open).rejects.toThrow("rolled back");
  await outsider;
  expect(await has("one-queue-outsider")).toBe(true);
  expect(await has("one-queue-tx")).toBe(false);
});
