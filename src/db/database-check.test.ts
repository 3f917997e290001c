import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMigrations } from "./migrate.ts";
import { EMBEDDED_MIGRATIONS } from "./migrations.generated.ts";
import { databaseProblem } from "./database-check.ts";
import { onPostgres } from "../../test/support/postgres.ts";

// SQLite only: databaseProblem vets the SQLite file a restore stages (verbatim.db from a backup
// archive): its integrity, schema and migrations. A PostgreSQL database is not restored from such
// an archive (pg_dump / pg_restore), so nothing here has a PostgreSQL counterpart.

const dir = mkdtempSync(join(tmpdir(), "verbatim-dbcheck-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function database(build: (db: Database) => void): string {
  const path = join(dir, `db-${n++}.db`);
  const db = new Database(path, { create: true });
  build(db);
  db.close();
  return path;
}

test.skipIf(onPostgres)("this build's database, and an older build's (fewer migrations, applied at start), are accepted", () => {
  expect(databaseProblem(database((db) => applyMigrations(db)))).toBeUndefined();
  expect(databaseProblem(database((db) => applyMigrations(db, EMBEDDED_MIGRATIONS.slice(0, -2))))).toBeUndefined();
});

test.skipIf(onPostgres)("migrations out of order, unknown, or none are refused", () => {
  const gap = database((db) => {
    applyMigrations(db, EMBEDDED_MIGRATIONS.slice(0, 3));
    db.query("INSERT INTO schema_migrations (tag, applied_at) VALUES (?, 0)").run(EMBEDDED_MIGRATIONS[4]!.tag);
  });
  expect(databaseProblem(gap)).toContain("not this version's, in order");
  const newer = database((db) => {
    applyMigrations(db);
    db.exec("INSERT INTO schema_migrations (tag, applied_at) VALUES ('9999_next', 0)");
  });
  expect(databaseProblem(newer)).toContain("newer Verbatim (migration 9999_next");
  expect(databaseProblem(database((db) => db.exec("CREATE TABLE schema_migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")))).toContain("not this version's");
  expect(databaseProblem(database((db) => db.exec("CREATE TABLE notes (body TEXT)")))).toContain("not a Verbatim database");
});

test.skipIf(onPostgres)("a schema the migrations do not make is refused: a view, a trigger or a column added", () => {
  const changes = [
    "CREATE VIEW all_titles AS SELECT title FROM meetings",
    "CREATE TRIGGER keep AFTER DELETE ON meetings BEGIN SELECT 1; END",
    "ALTER TABLE meetings ADD COLUMN shadow TEXT",
  ];
  for (const change of changes) {
    expect(databaseProblem(database((db) => {
      applyMigrations(db);
      db.exec(change);
    }))).toContain("schema");
  }
});
