// The API-key lookup's cache answers from memory only while no other connection has changed the
// database: a key revoked or a user moved to another plan by the admin CLI (another process,
// another connection) is seen by lookups from 1 ms after its commit.
import { afterAll, expect, test } from "bun:test";
import { openDatabase } from "../db/client.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { createApiKey, createApiKeyLookup, revokeApiKey } from "./api-keys.ts";
import { createUser, setUserPlan } from "./users.ts";

const database = tempDatabase("api-keys");
afterAll(() => database.remove());

test("a revocation or a plan change committed by another connection is seen 1 ms later", async () => {
  const user = createUser(database.db, { email: "cache@firm.example", plan: "free" });
  const { key } = createApiKey(database.db, { userId: user.id, name: "k", scopes: ["read:meetings"] });
  const lookup = createApiKeyLookup(database.db);
  expect(lookup.find(key)?.key.revokedAt).toBeNull();
  expect(lookup.find(key)?.user.plan).toBe("free"); // now from the cache

  const admin = openDatabase(database.path); // as `verbatim admin` would, in its own process
  setUserPlan(admin, user.id, "pro");
  await Bun.sleep(2);
  expect(lookup.find(key)?.user.plan).toBe("pro");
  const id = lookup.find(key)!.key.id;
  expect(revokeApiKey(admin, id)).toBe(true);
  await Bun.sleep(2);
  expect(lookup.find(key)?.key.revokedAt).not.toBeNull();
  admin.$client.close();

  expect(lookup.find("vb_live_" + "x".repeat(40))).toBeUndefined();
});
