// The client folders' use cases against a real store: list (archived ones on request, a name
// filter that folds case beyond ASCII) and archive / unarchive, another account's client absent.
import { expect, test } from "bun:test";
import type { Actor } from "../auth/actor.ts";
import { actingAndOther } from "../../test/support/actor.ts";
import { freshDatabaseEachTest, type TempDatabase } from "../../test/support/database.ts";
import { run } from "../db/conn.ts";
import { clientsApp } from "./app.ts";
import { createClient } from "./service.ts";

let database: TempDatabase;
let actor: Actor;
let other: Actor;

freshDatabaseEachTest("clients", async (created) => {
  database = created;
  [actor, other] = await actingAndOther(created.conn);
});

test("list: by name, archived ones only when asked, a case-folding name filter, the account's own only", async () => {
  const app = clientsApp({ conn: database.conn });
  await run(database.conn, (q) => createClient(q, actor.account.userId, { name: "Zeta" }, 1));
  await run(database.conn, (q) => createClient(q, actor.account.userId, { name: "Éclair SA" }, 2));
  await run(database.conn, (q) => createClient(q, actor.account.userId, { name: "Old", isArchived: true }, 3));
  await run(database.conn, (q) => createClient(q, other.account.userId, { name: "Theirs" }, 4));
  expect((await app.list(actor, { includeArchived: false })).map((c) => c.name)).toEqual(["Éclair SA", "Zeta"]);
  expect((await app.list(actor, { includeArchived: true })).map((c) => c.name)).toEqual(["Éclair SA", "Old", "Zeta"]);
  expect((await app.list(actor, { includeArchived: false, q: "éCLAIR" })).map((c) => c.name)).toEqual(["Éclair SA"]);
});

test("setArchived: archives and brings back by cli_ id; another account's, a missing or a malformed id is undefined", async () => {
  const app = clientsApp({ conn: database.conn });
  const row = await run(database.conn, (q) => createClient(q, actor.account.userId, { name: "Acme" }, 1));
  expect((await app.setArchived(actor, `cli_${row.id}`, true))?.isArchived).toBe(true);
  expect(await app.list(actor, { includeArchived: false })).toEqual([]);
  expect((await app.setArchived(actor, `cli_${row.id}`, false))?.isArchived).toBe(false);
  expect(await app.setArchived(other, `cli_${row.id}`, true)).toBeUndefined();
  expect(await app.setArchived(actor, "cli_999", true)).toBeUndefined();
  expect(await app.setArchived(actor, "nope", true)).toBeUndefined();
  expect((await app.list(actor, { includeArchived: false })).map((c) => c.name)).toEqual(["Acme"]);
});
