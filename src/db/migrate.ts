import type { Database } from "bun:sqlite";
import type { DbConn } from "./conn.ts";
import { migratePostgres } from "./pg-migrate.ts";
import { EMBEDDED_MIGRATIONS } from "./migrations.generated.ts";

export interface Migration {
  tag: string;
  sql: string;
}

const BREAKPOINT = "--> statement-breakpoint";

/** The migrations of the service's database, whichever it is (the composition root's start, the admin CLI). */
export async function migrateConn(conn: DbConn): Promise<string[]> {
  if (conn.dialect === "postgres") return migratePostgres(conn);
  return applyMigrations(conn.sqlite);
}

/**
 * Applies the migrations not yet recorded in schema_migrations, each in its own transaction.
 * BEGIN IMMEDIATE takes the write lock first, so a server and an admin command starting together
 * cannot both apply the same migration.
 */
export function applyMigrations(sqlite: Database, migrations: Migration[] = EMBEDDED_MIGRATIONS): string[] {
  sqlite.exec("CREATE TABLE IF NOT EXISTS schema_migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied: string[] = [];
  for (const migration of migrations) {
    sqlite.exec("BEGIN IMMEDIATE");
    try {
      const done = sqlite.query("SELECT 1 FROM schema_migrations WHERE tag = ?").get(migration.tag);
      if (!done) {
        for (const statement of migration.sql.split(BREAKPOINT)) {
          if (statement.trim()) sqlite.exec(statement);
        }
        sqlite.query("INSERT INTO schema_migrations (tag, applied_at) VALUES (?, ?)").run(migration.tag, Date.now());
        applied.push(migration.tag);
      }
      sqlite.exec("COMMIT");
    } catch (error) {
      sqlite.exec("ROLLBACK");
      throw new Error(`migration ${migration.tag} failed: ${(error as Error).message}`);
    }
  }
  return applied;
}

/** Tags of embedded migrations the database has not applied yet; empty when it is current. */
export function pendingMigrations(sqlite: Database, migrations: Migration[] = EMBEDDED_MIGRATIONS): string[] {
  const table = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return migrations.map((m) => m.tag);
  const done = new Set(
    (sqlite.query("SELECT tag FROM schema_migrations").all() as { tag: string }[]).map((r) => r.tag),
  );
  return migrations.filter((m) => !done.has(m.tag)).map((m) => m.tag);
}
