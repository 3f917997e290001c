import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { tempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { run, runTx, withTx, type Conn } from "./conn.ts";
import { exec, lockAccount, rows } from "./sql.ts";

// The same tests on SQLite and, on the PostgreSQL run of the suite, on PostgreSQL.
const database = tempDatabase("conn");
const db = database.conn;
await run(db, (q) => exec(q, sql.raw(`CREATE TABLE t (id ${onPostgres ? "serial" : "INTEGER"} PRIMARY KEY, v TEXT NOT NULL UNIQUE)`)));
afterAll(() => database.remove());

const insert = (c: Conn, v: string) => run(c, (q) => exec(q, sql`INSERT INTO t (v) VALUES (${v})`));
const values = (c: Conn) => run(c, async (q) => (await rows<{ v: string }>(q, sql`SELECT v FROM t ORDER BY id`)).map((r) => r.v));
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

  test.skipIf(onPostgres)("SQLite: two transactions run one after the other, in arrival order", async () => {
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
  /** A body that writes `v`, then throws. */
  const writeThenThrow = (c: Conn, v: string) =>
    runTx(c, async (q) => {
      await exec(q, sql`INSERT INTO t (v) VALUES (${v})`);
      throw new Error(`${v} refused`);
    });

  test("a body that throws rolls back, alone or inside a transaction", async () => {
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

test.skipIf(onPostgres)("SQLite: connOf gives one Conn per connection, so every wrapper shares one queue", async () => {
  const { connOf } = await import("./conn.ts");
  const drizzle = database.db;
  expect(connOf(drizzle) as unknown).toBe(db);
  let release!: () => void;
  const open = withTx(connOf(drizzle), async (tx) => {
    await insert(tx, "one-queue-tx");
    await new Promise<void>((resolve) => (release = resolve));
    throw new Error("rolled back");
  });
  await Bun.sleep(5);
  const outsider = insert(connOf(drizzle), "one-queue-outsider");
  release();
  await expect(open).rejects.toThrow("rolled back");
  await outsider;
  expect(await has("one-queue-outsider")).toBe(true);
  expect(await has("one-queue-tx")).toBe(false);
});

test.skipIf(onPostgres)("SQLite: a run body's statements never run inside a transaction begun between them", async () => {
  let resume!: () => void;
  const paused = new Promise<void>((resolve) => (resume = resolve));
  const body = run(db, async (q) => {
    await exec(q, sql`INSERT INTO t (v) VALUES ('run-body-1')`);
    await paused;
    await exec(q, sql`INSERT INTO t (v) VALUES ('run-body-2')`);
  });
  await Bun.sleep(5);
  // Begun while the body waits: it must start only after the body, or the body's second insert
  // would run inside it and be rolled back with it.
  const failing = withTx(db, async (tx) => {
    await insert(tx, "failing-tx");
    throw new Error("rolled back");
  });
  resume();
  await body;
  await expect(failing).rejects.toThrow("rolled back");
  expect(await has("run-body-1")).toBe(true);
  expect(await has("run-body-2")).toBe(true);
  expect(await has("failing-tx")).toBe(false);
});

test("transactions that lock the same account run one after the other; other accounts' do not wait", async () => {
  const order: string[] = [];
  const locked = (account: string, name: string, pause: number) =>
    withTx(db, async (tx) => {
      await run(tx, (q) => lockAccount(q, account));
      order.push(`${name} begins`);
      await Bun.sleep(pause);
      await insert(tx, name);
      order.push(`${name} ends`);
    });
  const first = locked("usr_a", "a-first", 40);
  await Bun.sleep(10);
  await Promise.all([first, locked("usr_a", "a-second", 0)]);
  expect(order.indexOf("a-second begins")).toBeGreaterThan(order.indexOf("a-first ends"));
  expect(await has("a-first")).toBe(true);
  expect(await has("a-second")).toBe(true);
});

test.skipIf(!onPostgres)("PostgreSQL: a transaction of another account runs while one account's lock is held", async () => {
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const first = withTx(db, async (tx) => {
    await run(tx, (q) => lockAccount(q, "usr_x"));
    order.push("x holds");
    await held;
    order.push("x ends");
  });
  await Bun.sleep(10);
  await withTx(db, async (tx) => {
    await run(tx, (q) => lockAccount(q, "usr_y"));
    order.push("y ran");
  });
  release();
  await first;
  expect(order).toEqual(["x holds", "y ran", "x ends"]);
});
