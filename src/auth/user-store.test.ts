// The first-run admin (service.ts bootstrapAdmin) when several nodes start at once on one fresh
// database: made once, the other nodes' starts go on without it.
import { afterAll, expect, test } from "bun:test";
import { tempDatabase } from "../../test/support/database.ts";
import { addFirstUser, countUsers } from "./user-store.ts";

const database = tempDatabase("first-user");
afterAll(() => database.remove());

test("four nodes trying at once make one first user; a later try makes none", async () => {
  const input = { email: "admin@localhost", name: "Administrator", plan: "pro" as const };
  const made = await Promise.all([1, 2, 3, 4].map(() => addFirstUser(database.conn, input)));
  expect(made.filter((user) => user !== null)).toHaveLength(1);
  expect(await countUsers(database.conn)).toBe(1);
  expect(await addFirstUser(database.conn, input)).toBeNull();
});
