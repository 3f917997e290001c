import { afterAll, describe, expect, test } from "bun:test";
import { createUser } from "../auth/user-store.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { feedback } from "../feedback/table.ts";
import type { Queryable } from "../db/client.ts";
import { run, runTx, withTx } from "../db/conn.ts";
import { IdempotencyStore } from "./store.ts";
import { idempotencyKeys } from "./table.ts";

const temp = tempDatabase("idem");
const db = temp.db;
const user = await createUser(db, { email: "idem@example.com", name: "Idem", plan: "pro" });
const store = new IdempotencyStore(temp.conn, { now: () => Date.now() });
afterAll(() => temp.remove());

/** A request that creates one feedback row (any table works) and records its key in the same transaction. */
type Body = "drizzle" | "runTx" | "withTx";

/** One feedback row and the key's `complete`, in a transaction of each kind a caller may hold. */
async function createInTransaction(body: Body, key: string, complete: Parameters<Parameters<IdempotencyStore["run"]>[0]["execute"]>[1], fail: boolean): Promise<number> {
  const insert = (q: Queryable) => q.insert(feedback).values({ userId: user.id, type: "question", message: key, status: "received", createdAt: Date.now() }).returning({ id: feedback.id }).get()!.id;
  const rollback = () => {
    if (fail) throw new Error("rolled back after complete");
  };
  if (body === "drizzle") {
    let id = 0;
    db.transaction((tx) => {
      id = insert(tx);
      complete(tx, { status: 201, body: { id } }, String(id));
      rollback();
    });
    return id;
  }
  if (body === "runTx") {
    return runTx(temp.conn, (q) => {
      const id = insert(q);
      complete(q, { status: 201, body: { id } }, String(id));
      rollback();
      return id;
    });
  }
  return withTx(temp.conn, async (tx) => {
    const id = await run(tx, (q) => insert(q));
    await Bun.sleep(1);
    complete(tx, { status: 201, body: { id } }, String(id));
    rollback();
    return id;
  });
}

function request(key: string, options: { failAfterCommit?: boolean; failInTransaction?: boolean; body?: Body } = {}) {
  return store.run({
    userId: user.id,
    operation: "TEST",
    key,
    parse: async () => ({ parsed: "same", hash: "h" }),
    execute: async (_parsed, complete) => {
      const id = await createInTransaction(options.body ?? "drizzle", key, complete, options.failInTransaction === true);
      if (options.failAfterCommit) throw new Error("the process died right after the commit");
      return { status: 201, body: { id } };
    },
  });
}

const rows = (key: string) => db.$client.query("SELECT count(*) AS n FROM feedback WHERE message = ?").get(key) as { n: number };

describe.each(["drizzle", "runTx", "withTx"] as const)("IdempotencyStore with a key completed in the creating transaction (%s)", (body) => {
  test("a failure after the commit keeps the key: the retry replays, nothing is created twice", async () => {
    const key = crypto.randomUUID();
    await expect(request(key, { failAfterCommit: true, body })).rejects.toThrow("died right after the commit");
    const retry = await request(key, { body });
    expect(retry.replayed).toBe(true);
    expect(rows(key).n).toBe(1);
  });

  test("a transaction that rolls back after complete leaves no key: the retry runs anew", async () => {
    const key = crypto.randomUUID();
    await expect(request(key, { failInTransaction: true, body })).rejects.toThrow("rolled back");
    expect(rows(key).n).toBe(0);
    expect(db.select().from(idempotencyKeys).all().filter((r) => r.key === key)).toEqual([]);
    const retry = await request(key, { body });
    expect(retry.replayed).toBe(false);
    expect(rows(key).n).toBe(1);
  });
});

describe("IdempotencyStore without a transaction of the caller's", () => {
  test("a replay answers the first response; another body under the key is 422; the key in use is 409", async () => {
    const key = crypto.randomUUID();
    const once = (hash: string, execute?: () => Promise<{ status: number; body: unknown }>) =>
      store.run({ userId: user.id, operation: "PLAIN", key, parse: async () => ({ parsed: null, hash }), execute: execute ?? (async () => ({ status: 200, body: { n: 1 } })) });
    expect(await once("a")).toEqual({ status: 200, body: { n: 1 }, replayed: false });
    expect(await once("a", async () => ({ status: 200, body: { n: 2 } }))).toEqual({ status: 200, body: { n: 1 }, replayed: true });
    expect((await once("b").catch((error) => error)).code).toBe("idempotency_key_reused");
    const other = crypto.randomUUID();
    let release!: () => void;
    const first = store.run({ userId: user.id, operation: "PLAIN", key: other, parse: async () => ({ parsed: null, hash: "h" }), execute: () => new Promise((resolve) => (release = () => resolve({ status: 201, body: {} }))) });
    await Bun.sleep(5);
    const second = await store.run({ userId: user.id, operation: "PLAIN", key: other, parse: async () => ({ parsed: null, hash: "h" }), execute: async () => ({ status: 201, body: {} }) }).catch((error) => error);
    expect(second.code).toBe("idempotency_key_in_use");
    release();
    expect((await first).replayed).toBe(false);
  });

  test("recover frees keys left in progress; sweep drops keys past their 24 hours", async () => {
    db.insert(idempotencyKeys).values({ userId: user.id, operation: "OLD", key: "k-old", status: "done", requestHash: "h", responseStatus: 200, responseBody: "{}", createdAt: Date.now() - 25 * 3600_000 }).run();
    db.insert(idempotencyKeys).values({ userId: user.id, operation: "RUN", key: "k-run", status: "in_progress", createdAt: Date.now() }).run();
    await store.recover();
    const keys = db.select().from(idempotencyKeys).all().map((r) => r.key);
    expect(keys).not.toContain("k-old");
    expect(keys).not.toContain("k-run");
  });
});
