// The PostgreSQL side of the test helpers (issue 22). With VERBATIM_TEST_DATABASE_URL set (a
// server where its user may create databases: .ci/run and scripts/test-postgres.sh start one), every
// temp database and every test server runs on a fresh PostgreSQL database of its own, copied from
// a migrated template; without it, on SQLite as always.
import { createHash, randomBytes } from "node:crypto";
import { EMBEDDED_PG_MIGRATIONS } from "../../src/db/migrations.generated.ts";
import { PgConn } from "../../src/db/pg-conn.ts";
import { migratePostgres } from "../../src/db/pg-migrate.ts";

export const TEST_DATABASE_URL = process.env.VERBATIM_TEST_DATABASE_URL || undefined;
/** True when this run of the suite is the PostgreSQL one. */
export const onPostgres = TEST_DATABASE_URL !== undefined;

/** The template's name changes with the migrations, so a stale template is never copied. */
const TEMPLATE = `verbatim_tpl_${createHash("sha256")
  .update(EMBEDDED_PG_MIGRATIONS.map((m) => m.sql).join("\n"))
  .digest("hex")
  .slice(0, 12)}`;

function urlOf(database: string): string {
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${database}`;
  return url.toString();
}

/** psql on the server's maintenance database, synchronously (a test's temp database is made in a sync helper). */
function psql(statement: string): { ok: boolean; stderr: string } {
  const result = Bun.spawnSync(["psql", TEST_DATABASE_URL!, "-v", "ON_ERROR_STOP=1", "-qAtc", statement], { stdout: "pipe", stderr: "pipe" });
  return { ok: result.exitCode === 0, stderr: result.stderr.toString() };
}

/**
 * The migrated template, made once per set of migrations (by whichever test process gets there
 * first: built under a temporary name, then renamed, so no process copies a half-migrated one).
 */
export async function ensureTemplate(): Promise<void> {
  if (!onPostgres) return;
  const exists = Bun.spawnSync(["psql", TEST_DATABASE_URL!, "-qAtc", `SELECT 1 FROM pg_database WHERE datname = '${TEMPLATE}'`]).stdout.toString().trim();
  if (exists === "1") return;
  const building = `${TEMPLATE}_${randomBytes(4).toString("hex")}`;
  const created = psql(`CREATE DATABASE "${building}"`);
  if (!created.ok) throw new Error(`could not create the PostgreSQL test template: ${created.stderr}`);
  const conn = new PgConn(urlOf(building), { poolSize: 2 });
  try {
    await migratePostgres(conn);
  } finally {
    await conn.close();
  }
  const renamed = psql(`ALTER DATABASE "${building}" RENAME TO "${TEMPLATE}"`);
  // Another process renamed its own first: ours is not needed.
  if (!renamed.ok) psql(`DROP DATABASE IF EXISTS "${building}"`);
}

/** A fresh migrated database (a copy of the template), or an empty one; answers its URL. */
export function createTestDatabase(name = "t", options: { empty?: boolean } = {}): string {
  const database = `verbatim_${name.replace(/\W/g, "_").slice(0, 20)}_${randomBytes(6).toString("hex")}`;
  const created = psql(options.empty ? `CREATE DATABASE "${database}"` : `CREATE DATABASE "${database}" TEMPLATE "${TEMPLATE}"`);
  if (!created.ok) throw new Error(`could not create a PostgreSQL test database (did the preload make the template?): ${created.stderr}`);
  return urlOf(database);
}

/** Drops a database createTestDatabase made, whoever is still connected to it. */
export function dropTestDatabase(url: string): void {
  const database = new URL(url).pathname.slice(1);
  psql(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}
