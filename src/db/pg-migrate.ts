import type { PgConn } from "./pg-conn.ts";
import { EMBEDDED_PG_MIGRATIONS } from "./migrations.generated.ts";
import type { Migration } from "./migrate.ts";

const BREAKPOINT = "--> statement-breakpoint";
/** The advisory lock every node takes to migrate: several nodes starting at once migrate once. */
const MIGRATION_LOCK = 0x76657262; // "verb"

/**
 * Applies the PostgreSQL migrations not yet recorded in schema_migrations, each in its own
 * transaction, while holding a session advisory lock: a second node starting at the same time
 * waits on the lock, then finds every migration recorded and applies none.
 */
export async function migratePostgres(conn: PgConn, migrations: Migration[] = EMBEDDED_PG_MIGRATIONS): Promise<string[]> {
  const client = await conn.pool.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)");
    for (const migration of migrations) {
      await client.query("BEGIN");
      try {
        const done = await client.query("SELECT 1 FROM schema_migrations WHERE tag = $1", [migration.tag]);
        if (done.rowCount === 0) {
          for (const statement of migration.sql.split(BREAKPOINT)) {
            if (statement.trim()) await client.query(statement);
          }
          await client.query("INSERT INTO schema_migrations (tag, applied_at) VALUES ($1, $2)", [migration.tag, Date.now()]);
          applied.push(migration.tag);
        }
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${migration.tag} failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}

/** Tags of embedded PostgreSQL migrations the database has not applied yet; empty when it is current. */
export async function pendingPgMigrations(conn: PgConn, migrations: Migration[] = EMBEDDED_PG_MIGRATIONS): Promise<string[]> {
  const table = await conn.pool.query("SELECT to_regclass('schema_migrations') AS t");
  if (!table.rows[0]?.t) return migrations.map((m) => m.tag);
  const done = new Set((await conn.pool.query<{ tag: string }>("SELECT tag FROM schema_migrations")).rows.map((r) => r.tag));
  return migrations.filter((m) => !done.has(m.tag)).map((m) => m.tag);
}
