// A migrated database for unit tests of modules that query it: a SQLite file in a temp folder, or,
// on the PostgreSQL run of the suite (VERBATIM_TEST_DATABASE_URL), a fresh PostgreSQL database.
import { afterEach, beforeEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../../src/db/client.ts";
import { connOf, type DbConn } from "../../src/db/conn.ts";
import { applyMigrations } from "../../src/db/migrate.ts";
import { PgConn } from "../../src/db/pg-conn.ts";
import { createTestDatabase, dropTestDatabase, onPostgres } from "./postgres.ts";

export interface TempDatabase {
  /** The database as stores take it (db/conn.ts): SQLite or PostgreSQL. */
  conn: DbConn;
  /** The SQLite connection under `conn`; throws on the PostgreSQL run (use `conn` and the stores). */
  readonly db: Db;
  /** The SQLite file, for a second connection; throws on the PostgreSQL run. */
  readonly path: string;
  /** The PostgreSQL database's URL on the PostgreSQL run, for a second connection or a server. */
  url?: string;
  /** Closes the database and removes it. */
  remove(): Promise<void>;
}

function sqliteOnly(what: string): never {
  throw new Error(`${what} is the SQLite file's: this test must use the database through its \`conn\` to run on PostgreSQL too`);
}

export function tempDatabase(name = "test"): TempDatabase {
  if (onPostgres) {
    const url = createTestDatabase(name);
    const conn = new PgConn(url, { poolSize: 4, applicationName: `verbatim-test-${name}` });
    return {
      conn,
      url,
      get db(): Db {
        return sqliteOnly("tempDatabase().db");
      },
      get path(): string {
        return sqliteOnly("tempDatabase().path");
      },
      async remove() {
        await conn.close();
        dropTestDatabase(url);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `verbatim-${name}-`));
  const path = join(dir, "verbatim.db");
  const db = openDatabase(path);
  applyMigrations(db.$client);
  return {
    db,
    conn: connOf(db),
    path,
    async remove() {
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh migrated database for each test of the file (created before, removed after); `created`
 * sets the test's variables from it (its accounts, its stores).
 */
export function freshDatabaseEachTest(name: string, created: (database: TempDatabase) => void | Promise<void>): void {
  let database: TempDatabase | undefined;
  beforeEach(async () => {
    database = tempDatabase(name);
    await created(database);
  });
  afterEach(async () => {
    await database?.remove();
  });
}
