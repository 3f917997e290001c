import { afterAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { addUser } from "../auth/user-store.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { feedback } from "../feedback/table.ts";
import { dialectOf, run, withTx, type TxConn } from "../db/conn.ts";
import { IdempotencyStore, type CompleteInTransaction } from "./store.ts";
import { idempotencyKeys } from "./table.ts";

const temp = tempDatabase("idem");
const user = await addUser(temp.conn, { email: "idem@example.com", name: "Idem", plan: "pro" });
/** Rows of the idempotency keys table, read through the store's `Conn` (either dialect). */
const insertKey = (row: Omit<typeof idempotencyKeys.$inferInsert, "userId">) => run(temp.conn, async (q) => void (await q.insert(idempotencyKeys).values({ userId: user.id, ...row })));
const keyRows = () => run(temp.conn, async (q) => await q.select().from(idempotencyKeys));
const store = new IdempotencyStore(temp.conn, { now: () => Date.now() });
afterAll(() => temp.remove());

/** A request that creates one feedback row (any table works) and records its key in the same transaction. */
type Body = "withTx" | "savepoint";

/** One feedback row and the key's `complete`, in a transaction of its own or a savepoint of the caller's. */
async function createInTransaction(body: Body, key: string, complete: CompleteInTransaction, fail: boolean): Promise<number> {
  const create = async (tx: TxConn) => {
    const id = await run(tx, async (q) => (await q.insert(feedback).values({ userId: user.id, type: "question", message: key, status: "received", createdAt: Date.now() }).returning({ id: feedback.id }))[0]!.id);
    await Bun.sleep(1);
    await complete(tx, { status: 201, body: { id } }, String(id));
    if (fail) throw new Error("rolled back after complete");
    return id;
  };
  if (body === "withTx") return withTx(temp.conn, create);
  return withTx(temp.conn, (outer) => withTx(outer, create));
}

function request(key: string, options: { failAfterCommit?: boolean; failInTransaction?: boolean; body?: Body } = {}) {
  return store.run({
    userId: user.id,
    operation: "TEST",
    key,
    parse: async () => ({ parsed: "same", hash: "h" }),
    execute: async (_parsed, complete) => {
      const id = await createInTransaction(options.body ?? "withTx", key, complete, options.failInTransaction === true);
      if (options.failAfterCommit) throw new Error("the process died right after the commit");
      return { status: 201, body: { id } };
    },
  });
}

const rows = async (key: string) => (await run(temp.conn, async (q) => await q.select({ n: count() }).from(feedback).where(eq(feedback.message, key))))[0]!;

describe.each(["withTx", "savepoint"] as const)("IdempotencyStore with a key completed in the creating transaction (%s)", (body) => {
  test("a failure after the commit keeps the key: the retry replays, nothing is created twice", async () => {
    const key = crypto.randomUUID();
    await expect(request(key, { failAfterCommit: true, body })).rejects.toThrow("died right after the commit");
    const retry = await request(key, { body });
    expect(retry.replayed).toBe(true);
    expect((await rows(key)).n).toBe(1);
  });

  test("a transaction that rolls back after complete leaves no key: the retry runs anew", async () => {
    const key = crypto.randomUUID();
    await expect(request(key, { failInTransaction: true, body })).rejects.toThrow("rolled back");
    expect((await rows(key)).n).toBe(0);
    expect((await keyRows()).filter((r) => r.key === key)).toEqual([]);
    const retry = await request(key, { body });
    expect(retry.replayed).toBe(false);
    expect((await rows(key)).n).toBe(1);
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

  test("recover frees keys left in progress (on PostgreSQL only those whose heartbeat stopped); sweep drops keys past their 24 hours", async () => {
    await insertKey({ operation: "OLD", key: "k-old", status: "done", requestHash: "h", responseStatus: 200, responseBody: "{}", createdAt: Date.now() - 25 * 3600_000 });
    await insertKey({ operation: "RUN", key: "k-run", status: "in_progress", createdAt: Date.now() });
    await insertKey({ operation: "RUN", key: "k-dead", status: "in_progress", createdAt: Date.now() - 10 * 60_000 });
    await store.recover();
    const keys = (await keyRows()).map((r) => r.key);
    expect(keys).not.toContain("k-old");
    expect(keys).not.toContain("k-dead");
    // SQLite: this process is the only one, so no request of it survived. PostgreSQL: another node's may be running.
    if (dialectOf(temp.conn) === "sqlite") expect(keys).not.toContain("k-run");
    else expect(keys).toContain("k-run");
  });
});

describe("IdempotencyStore across nodes (two stores on one database)", () => {
  const plain = (on: IdempotencyStore, key: string, execute: () => Promise<{ status: number; body: unknown }>) =>
    on.run({ userId: user.id, operation: "NODES", key, parse: async () => ({ parsed: null, hash: "h" }), execute });

  test("requests with one key sent at once through two nodes execute once; the others answer 409 or replay it", async () => {
    const other = new IdempotencyStore(temp.conn, { now: () => Date.now() });
    const key = crypto.randomUUID();
    let executed = 0;
    const execute = async () => {
      executed += 1;
      await Bun.sleep(20);
      return { status: 201, body: { n: executed } };
    };
    const outcomes = await Promise.all(
      [store, other, store, other].map((on) =>
        plain(on, key, execute).then(
          (outcome) => (outcome.replayed ? "replayed" : "executed"),
          (error) => error.code as string,
        ),
      ),
    );
    expect(executed).toBe(1);
    expect(outcomes.filter((o) => o === "executed")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "executed" && o !== "replayed" && o !== "idempotency_key_in_use")).toEqual([]);
    expect(await plain(other, key, execute)).toMatchObject({ status: 201, replayed: true });
  });

  test("a key left in progress by a node that died is taken over once its heartbeat has stopped for the lease", async () => {
    let now = Date.now();
    const later = new IdempotencyStore(temp.conn, { now: () => now });
    const key = crypto.randomUUID();
    await insertKey({ operation: "NODES", key, status: "in_progress", createdAt: now });
    const execute = async () => ({ status: 201, body: { created: true } });
    expect((await plain(later, key, execute).catch((error) => error)).code).toBe("idempotency_key_in_use");
    now += 60_000; // a live request beats every 30 s: still its key
    expect((await plain(later, key, execute).catch((error) => error)).code).toBe("idempotency_key_in_use");
    now += 5 * 60_000;
    expect(await plain(later, key, execute)).toEqual({ status: 201, body: { created: true }, replayed: false });
  });

  test("the lease is the store's option (--idempotency-lease): a shorter one hands the dead request's key over sooner", async () => {
    let now = Date.now();
    const short = new IdempotencyStore(temp.conn, { now: () => now }, { inProgressLeaseMs: 4_000 });
    const key = crypto.randomUUID();
    await insertKey({ operation: "NODES", key, status: "in_progress", createdAt: now });
    const execute = async () => ({ status: 201, body: { created: true } });
    now += 3_000;
    expect((await plain(short, key, execute).catch((error) => error)).code).toBe("idempotency_key_in_use");
    now += 2_000;
    expect(await plain(short, key, execute)).toEqual({ status: 201, body: { created: true }, replayed: false });
  });
});
