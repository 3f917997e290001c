// A migrated SQLite file in a temp folder, for unit tests of modules that query the database.
import { afterEach, beforeEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../../src/db/client.ts";
import { connOf, type DbConn } from "../../src/db/conn.ts";
import { applyMigrations } from "../../src/db/migrate.ts";

export interface TempDatabase {
  db: Db;
  /** The same connection as a store `Conn` (db/conn.ts). */
  conn: DbConn;
  /** The database file, for a second connection (another process, a raw bun:sqlite handle). */
  path: string;
  /** Closes the database and removes its folder. */
  remove(): void;
}

export function tempDatabase(name = "test"): TempDatabase {
  const dir = mkdtempSync(join(tmpdir(), `verbatim-${name}-`));
  const path = join(dir, "verbatim.db");
  const db = openDatabase(path);
  applyMigrations(db.$client);
  return {
    db,
    conn: connOf(db),
    path,
    remove() {
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
  afterEach(() => database?.remove());
}
