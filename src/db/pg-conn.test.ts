// The PostgreSQL connection (issue 22): text there cannot hold U+0000, which SQLite's stores, so a
// string carrying one is stored without it instead of failing its request.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { addUser, getUserById } from "../auth/user-store.ts";
import { tempDatabase, type TempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";
import { run } from "./conn.ts";
import { row } from "./sql.ts";

let database: TempDatabase;
beforeAll(() => {
  database = tempDatabase("pg-conn");
});
afterAll(() => database.remove());

test("a name with U+0000 is stored: as it is on SQLite, without that character on PostgreSQL", async () => {
  const user = await addUser(database.conn, { email: "nul@example.com", name: "Ada\u0000 Lovelace", plan: "pro" });
  expect((await getUserById(database.conn, user.id))?.name).toBe(onPostgres ? "Ada Lovelace" : "Ada\u0000 Lovelace");
});

test.skipIf(!onPostgres)("raw statements lose U+0000 too; other control characters are kept", async () => {
  const found = await run(database.conn, (q) => row<{ a: string }>(q, sql`SELECT ${"x\u0000y\u0001"}::text AS a`));
  expect(found).toEqual({ a: "xy\u0001" });
});
