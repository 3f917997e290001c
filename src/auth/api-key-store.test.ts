// The API-key lookup's cache answers from memory only while no other connection has changed the
// database: a key revoked or a user moved to another plan by the admin CLI (another process,
// another connection) is seen by lookups from 1 ms after its commit.
import { afterAll, expect, test } from "bun:test";
import { openConn } from "../db/conn.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { createApiKey, createApiKeyLookup, revokeApiKey } from "./api-key-store.ts";
import { createUser, setUserPlan } from "./user-store.ts";

const database = tempDatabase("api-keys");
afterAll(() => database.remove());

test("a revocation or a plan change committed by another connection is seen 1 ms later", async () => {
  const user = await createUser(database.db, { email: "cache@firm.example", plan: "free" });
  const { key } = await createApiKey(database.conn, { userId: user.id, name: "k", scopes: ["read:meetings"] });
  const lookup = createApiKeyLookup(database.conn);
  const first = lookup.find(key);
  expect(first).toBeInstanceOf(Promise); // not seen yet: read on the connection, in its turn
  expect((await first)?.key.revokedAt).toBeNull();
  const cached = lookup.find(key);
  expect(cached).not.toBeInstanceOf(Promise); // seen since the database last changed: answered at once
  expect((await cached)?.user.plan).toBe("free");
  expect((await cached)?.key.scopes).toEqual(["read:meetings"]);

  const admin = openConn(database.path); // as `verbatim admin` would, in its own process
  await setUserPlan(admin, user.id, "pro");
  await Bun.sleep(2);
  expect((await lookup.find(key))?.user.plan).toBe("pro");
  const id = (await lookup.find(key))!.key.id;
  expect(await revokeApiKey(admin, id)).toBe(true);
  await Bun.sleep(2);
  expect((await lookup.find(key))?.key.revokedAt).not.toBeNull();
  await admin.close();

  expect(await lookup.find("vb_live_" + "x".repeat(40))).toBeUndefined();
});
