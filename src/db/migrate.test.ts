import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { applyMigrations, pendingMigrations } from "./migrate.ts";
import { EMBEDDED_MIGRATIONS, EMBEDDED_PG_MIGRATIONS } from "./migrations.generated.ts";
import { onPostgres } from "../../test/support/postgres.ts";

/** The tags drizzle-kit's journal in `folder` lists, in order. */
async function journalTags(folder: string): Promise<string[]> {
  const journal = (await Bun.file(join(import.meta.dir, "../..", folder, "meta/_journal.json")).json()) as { entries: { tag: string }[] };
  return journal.entries.map((e) => e.tag);
}

test("every migration drizzle-kit generated is embedded in the executable, in order", async () => {
  expect(EMBEDDED_MIGRATIONS.map((m) => m.tag)).toEqual(await journalTags("migrations"));
});

test("every PostgreSQL migration drizzle-kit generated is embedded in the executable, in order", async () => {
  expect(EMBEDDED_PG_MIGRATIONS.map((m) => m.tag)).toEqual(await journalTags("migrations/postgres"));
});

// The next two apply the SQLite migrations to a SQLite database in memory; their PostgreSQL twins
// are in pg-migrate.test.ts.

test.skipIf(onPostgres)("migrations apply once; a second run applies nothing", () => {
  const db = new Database(":memory:");
  expect(pendingMigrations(db)).toEqual(EMBEDDED_MIGRATIONS.map((m) => m.tag));
  expect(applyMigrations(db)).toEqual(EMBEDDED_MIGRATIONS.map((m) => m.tag));
  expect(applyMigrations(db)).toEqual([]);
  expect(pendingMigrations(db)).toEqual([]);
  const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["users", "api_keys", "clients", "feedback", "meetings", "jobs"]));
});

test.skipIf(onPostgres)("a failing migration rolls back and names itself", () => {
  const db = new Database(":memory:");
  const broken = [{ tag: "9999_broken", sql: "CREATE TABLE t (x);--> statement-breakpoint\nNOT SQL" }];
  expect(() => applyMigrations(db, broken)).toThrow("migration 9999_broken failed");
  expect(db.query("SELECT name FROM sqlite_master WHERE name = 't'").get()).toBeNull();
  expect(pendingMigrations(db, broken)).toEqual(["9999_broken"]);
});
