import { Database } from "bun:sqlite";
import { EMBEDDED_MIGRATIONS } from "./migrations.generated.ts";
import { applyMigrations, type Migration } from "./migrate.ts";

type SchemaRow = { type: string; name: string; tbl_name: string; sql: string | null };

/**
 * Why a restored database is not one this build may serve, or undefined when it is. It must pass
 * SQLite's integrity check; its applied migrations must be this build's, in order (an older build's
 * backup lacks the last ones, which the server applies at start; one naming a migration this build
 * does not know comes from a newer build); and its schema (tables, indexes, triggers, views) and
 * the full-text index's settings (secure-delete among them) must be exactly what those migrations
 * make: a hand-made database could otherwise bring a trigger that copies deleted meetings aside.
 */
export function databaseProblem(path: string, migrations: Migration[] = EMBEDDED_MIGRATIONS): string | undefined {
  let db: Database;
  try {
    db = new Database(path, { readwrite: true });
  } catch {
    return "its database cannot be opened";
  }
  try {
    const integrity = db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    if (integrity.length !== 1 || integrity[0]!.integrity_check !== "ok") {
      return `its database fails SQLite's integrity check (${integrity[0]?.integrity_check ?? "no answer"})`;
    }
    const hasMigrations = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (!hasMigrations) return "its database is not a Verbatim database (no schema_migrations)";
    const applied = (db.query("SELECT tag FROM schema_migrations ORDER BY tag").all() as { tag: string }[]).map((row) => row.tag);
    const known = migrations.map((m) => m.tag);
    const unknown = applied.find((tag) => !known.includes(tag));
    if (unknown) return `its database was made by a newer Verbatim (migration ${unknown} is unknown to this version); restore it with that version`;
    if (applied.length === 0 || applied.some((tag, i) => tag !== known[i])) return "its database's migrations are not this version's, in order";
    const reference = new Database(":memory:");
    try {
      applyMigrations(reference, migrations.slice(0, applied.length));
      if (!sameRows(schemaOf(db), schemaOf(reference))) return "its database's schema is not what its migrations make (an extra or changed table, index, trigger or view)";
      for (const table of settingsTables(reference)) {
        if (!sameRows(rowsOf(db, table), rowsOf(reference, table))) return `its database's ${table} settings are not this version's`;
      }
    } finally {
      reference.close();
    }
    return undefined;
  } catch (error) {
    return `its database cannot be read (${(error as Error).message})`;
  } finally {
    db.close();
  }
}

/**
 * SQLite's quick check of a database file, read-only and beside a running server (it waits up to
 * 5 s for a writer): "ok", or the problems it found, joined. Throws when the file cannot be opened.
 */
export function quickCheck(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const rows = db.query("PRAGMA quick_check").all() as { quick_check: string }[];
    return rows.map((r) => r.quick_check).join("; ");
  } finally {
    db.close();
  }
}

function schemaOf(db: Database): SchemaRow[] {
  return db
    .query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
    .all() as SchemaRow[];
}

/**
 * The full-text index's shadow tables of settings (`…_config`): where its secure-delete option
 * lives. Their `version` row is left out: FTS5 raises it itself once secure-delete has deleted.
 */
function settingsTables(db: Database): string[] {
  const indexes = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' ORDER BY name").all() as { name: string }[];
  return indexes.map((row) => `${row.name}_config`);
}

function rowsOf(db: Database, table: string): unknown[] {
  return db.query(`SELECT k, v FROM "${table.replaceAll('"', '""')}" WHERE k <> 'version' ORDER BY k`).all();
}

function sameRows(a: unknown[], b: unknown[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
