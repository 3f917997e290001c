import { afterAll, describe, expect, test } from "bun:test";
import { createUser } from "../auth/users.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { feedback } from "../feedback/table.ts";
import { IdempotencyStore } from "./service.ts";
import { idempotencyKeys } from "./table.ts";

const temp = tempDatabase("idem");
const db = temp.db;
const user = createUser(db, { email: "idem@example.com", name: "Idem", plan: "pro" });
const store = new IdempotencyStore(db, { now: () => Date.now() });
afterAll(() => temp.remove());

/** A request that creates one feedback row (any table works) and records its key in the same transaction. */
function request(key: string, options: { failAfterCommit?: boolean; failInTransaction?: boolean } = {}) {
  return store.run({
    userId: user.id,
    operation: "TEST",
    key,
    parse: async () => ({ parsed: "same", hash: "h" }),
    execute: async (_parsed, complete) => {
      let id = 0;
      db.transaction((tx) => {
        id = tx.insert(feedback).values({ userId: user.id, type: "question", message: key, status: "received", createdAt: Date.now() }).returning({ id: feedback.id }).get()!.id;
        complete(tx, { status: 201, body: { id } }, String(id));
        if (options.failInTransaction) throw new Error("rolled back after complete");
      });
      if (options.failAfterCommit) throw new Error("the process died right after the commit");
      return { status: 201, body: { id } };
    },
  });
}

const rows = (key: string) => db.$client.query("SELECT count(*) AS n FROM feedback WHERE message = ?").get(key) as { n: number };

describe("IdempotencyStore with a key completed in the creating transaction", () => {
  test("a failure after the commit keeps the key: the retry replays, nothing is created twice", async () => {
    const key = crypto.randomUUID();
    await expect(request(key, { failAfterCommit: true })).rejects.toThrow("died right after the commit");
    const retry = await request(key);
    expect(retry.replayed).toBe(true);
    expect(rows(key).n).toBe(1);
  });

  test("a transaction that rolls back after complete leaves no key: the retry runs anew", async () => {
    const key = crypto.randomUUID();
    await expect(request(key, { failInTransaction: true })).rejects.toThrow("rolled back");
    expect(rows(key).n).toBe(0);
    expect(db.select().from(idempotencyKeys).all().filter((r) => r.key === key)).toEqual([]);
    const retry = await request(key);
    expect(retry.replayed).toBe(false);
    expect(rows(key).n).toBe(1);
  });
});
