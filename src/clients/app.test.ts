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

test("create and rename (issue 25): a name is trimmed and bounded, unique in the account without case (beyond ASCII), another account's folder is not found", async () => {
  const app = clientsApp({ conn: database.conn, now: () => 5 });
  const created = await app.create(actor, "  Éclair   SA ");
  if (created.kind !== "named") throw new Error(created.kind);
  expect(created.client).toMatchObject({ name: "Éclair SA", createdAt: 5, isArchived: false });
  const id = `cli_${created.client.id}`;
  expect(await app.create(actor, "éCLAIR sa")).toEqual({ kind: "name_taken" });
  expect(await app.create(actor, "   ")).toEqual({ kind: "invalid_name" });
  expect(await app.create(actor, "x".repeat(201))).toEqual({ kind: "invalid_name" });
  // The same name is free in another account.
  expect((await app.create(other, "Éclair SA")).kind).toBe("named");
  const second = await app.create(actor, "Zeta");
  if (second.kind !== "named") throw new Error(second.kind);
  expect(await app.rename(actor, `cli_${second.client.id}`, "ÉCLAIR SA")).toEqual({ kind: "name_taken" });
  // Its own name in another case is a rename, not a clash.
  const renamed = await app.rename(actor, id, "ÉCLAIR SA");
  expect(renamed.kind === "named" && renamed.client.name).toBe("ÉCLAIR SA");
  expect(await app.rename(other, id, "Mine now")).toEqual({ kind: "not_found" });
  expect(await app.rename(actor, "nope", "Anything")).toEqual({ kind: "not_found" });
  expect((await app.get(actor, id))?.name).toBe("ÉCLAIR SA");
  expect(await app.get(other, id)).toBeUndefined();
  expect((await app.list(actor, { includeArchived: true })).map((c) => c.name)).toEqual(["ÉCLAIR SA", "Zeta"]);
});
