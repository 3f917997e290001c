// PostgreSQL migrations (issue 22): applied once under an advisory lock, whichever node starts
// first; the ledger immutable there too. Runs on the PostgreSQL run of the suite.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDatabase, dropTestDatabase, onPostgres } from "../../test/support/postgres.ts";
import { EMBEDDED_PG_MIGRATIONS } from "./migrations.generated.ts";
import { PgConn } from "./pg-conn.ts";
import { migratePostgres, pendingPgMigrations } from "./pg-migrate.ts";

let url = "";
const conns: PgConn[] = [];
const open = () => {
  const conn = new PgConn(url, { poolSize: 3 });
  conns.push(conn);
  return conn;
};

beforeAll(() => {
  if (onPostgres) url = createTestDatabase("migrate", { empty: true });
});
afterAll(async () => {
  for (const conn of conns) await conn.close();
  if (url) dropTestDatabase(url);
});

test.skipIf(!onPostgres)("three nodes starting at once: the migrations are applied once, and none is left pending", async () => {
  const nodes = [open(), open(), open()];
  expect(await pendingPgMigrations(nodes[0]!)).toEqual(EMBEDDED_PG_MIGRATIONS.map((m) => m.tag));
  const applied = await Promise.all(nodes.map((node) => migratePostgres(node)));
  // One node applied every migration; the others waited on the lock, then found nothing to do.
  expect(applied.flat().sort()).toEqual(EMBEDDED_PG_MIGRATIONS.map((m) => m.tag).sort());
  expect(applied.filter((tags) => tags.length > 0)).toHaveLength(1);
  expect(await pendingPgMigrations(nodes[1]!)).toEqual([]);
  expect(await migratePostgres(nodes[2]!)).toEqual([]);
});

test.skipIf(!onPostgres)("a failed migration rolls back and names itself; the ones before it stay applied", async () => {
  const conn = open();
  const broken = [...EMBEDDED_PG_MIGRATIONS, { tag: "9999_broken", sql: "CREATE TABLE half_done (id int);--> statement-breakpoint\nSELECT no_such_function()" }];
  await expect(migratePostgres(conn, broken)).rejects.toThrow("migration 9999_broken failed");
  expect(await pendingPgMigrations(conn, broken)).toEqual(["9999_broken"]);
  const table = await conn.pool.query("SELECT to_regclass('half_done') AS t");
  expect(table.rows[0].t).toBeNull();
});

test.skipIf(!onPostgres)("ledger lines are immutable: UPDATE, DELETE and TRUNCATE are refused", async () => {
  const conn = open();
  await conn.pool.query("INSERT INTO users (id, email, plan, created_at) VALUES ('usr_l', 'l@example.com', 'pro', 0)");
  await conn.pool.query(
    `INSERT INTO ledger_lines (id, user_id, period, channel, operation, unit_rate, currency, cost, paid_wallet, paid_on_demand, written_off, created_at)
     VALUES ('led_1', 'usr_l', '2026-11', 'api', 'transcription', 100, 'EUR', 5, 5, 0, 0, 0)`,
  );
  await expect(conn.pool.query("UPDATE ledger_lines SET cost = 0")).rejects.toThrow("ledger lines are immutable");
  await expect(conn.pool.query("DELETE FROM ledger_lines")).rejects.toThrow("ledger lines are immutable");
  await expect(conn.pool.query("TRUNCATE ledger_lines")).rejects.toThrow("ledger lines are immutable");
  expect((await conn.pool.query("SELECT cost FROM ledger_lines")).rows).toEqual([{ cost: 5 }]);
});

test.skipIf(!onPostgres)("a deleted account gets no new rows", async () => {
  const conn = open();
  await conn.pool.query("INSERT INTO users (id, email, plan, created_at, deleted_at) VALUES ('usr_d', 'deleted:usr_d', 'pro', 0, 1)");
  await expect(
    conn.pool.query("INSERT INTO clients (user_id, name, is_archived, created_at) VALUES ('usr_d', 'Acme', false, 0)"),
  ).rejects.toThrow("the account was deleted");
});
