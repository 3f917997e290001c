// The API-key lookup sees a key revoked or a user moved to another plan by another connection (the
// admin CLI in another process, another API node) without a restart. SQLite answers from a cache
// that another connection's commit empties within 1 ms; PostgreSQL caches nothing, so such a
// change is seen by the very next lookup.
import { afterAll, expect, test } from "bun:test";
import { openConn, type DbConn } from "../db/conn.ts";
import { PgConn } from "../db/pg-conn.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { createApiKey, createApiKeyLookup, revokeApiKey, type ApiKeyLookup } from "./api-key-store.ts";
import { addUser, setUserPlan } from "./user-store.ts";

const database = tempDatabase("api-keys");
afterAll(() => database.remove());

/** A free user's key, a lookup on the test database, and a second connection to it, as `verbatim admin` would open in its own process. */
async function keyAndAdmin(): Promise<{ userId: string; key: string; lookup: ApiKeyLookup; admin: DbConn }> {
  const user = await addUser(database.conn, { email: "cache@firm.example", plan: "free" });
  const { key } = await createApiKey(database.conn, { userId: user.id, name: "k", scopes: ["read:meetings"] });
  const admin = onPostgres ? new PgConn(database.url!, { poolSize: 1 }) : openConn(database.path);
  return { userId: user.id, key, lookup: createApiKeyLookup(database.conn), admin };
}

// SQLite only: the cache and its 1 ms PRAGMA data_version recheck are the SQLite lookup's.
test.skipIf(onPostgres)("a revocation or a plan change committed by another connection is seen 1 ms later", async () => {
  const { userId, key, lookup, admin } = await keyAndAdmin();
  const first = lookup.find(key);
  expect(first).toBeInstanceOf(Promise); // not seen yet: read on the connection, in its turn
  expect((await first)?.key.revokedAt).toBeNull();
  const cached = lookup.find(key);
  expect(cached).not.toBeInstanceOf(Promise); // seen since the database last changed: answered at once
  expect((await cached)?.user.plan).toBe("free");
  expect((await cached)?.key.scopes).toEqual(["read:meetings"]);

  await setUserPlan(admin, userId, "pro");
  await Bun.sleep(2);
  expect((await lookup.find(key))?.user.plan).toBe("pro");
  const id = (await lookup.find(key))!.key.id;
  expect(await revokeApiKey(admin, id)).toBe(true);
  await Bun.sleep(2);
  expect((await lookup.find(key))?.key.revokedAt).not.toBeNull();
  await admin.close();

  expect(await lookup.find("vb_live_" + "x".repeat(40))).toBeUndefined();
});

test.skipIf(!onPostgres)("PostgreSQL: a revocation or a plan change committed by another connection is seen by the next lookup", async () => {
  const { userId, key, lookup, admin } = await keyAndAdmin();
  const first = await lookup.find(key);
  expect(first?.key.revokedAt).toBeNull();
  expect(first?.user.plan).toBe("free");
  expect(first?.key.scopes).toEqual(["read:meetings"]);
  // Never answered from memory: every find reads the database.
  expect(lookup.find(key)).toBeInstanceOf(Promise);

  await setUserPlan(admin, userId, "pro");
  expect((await lookup.find(key))?.user.plan).toBe("pro");
  expect(await revokeApiKey(admin, first!.key.id)).toBe(true);
  expect((await lookup.find(key))?.key.revokedAt).not.toBeNull();
  await admin.close();

  expect(await lookup.find("vb_live_" + "x".repeat(40))).toBeUndefined();
});
