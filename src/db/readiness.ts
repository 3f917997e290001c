import { sql } from "drizzle-orm";
import { run, sqliteOf, type Conn } from "./conn.ts";
import { pendingMigrations } from "./migrate.ts";

/** What /readyz asks of the database, on a `Conn` (it waits for an open transaction like any caller). */

/** Resolves when the database answers a trivial query; rejects with why it did not. */
export function pingDatabase(c: Conn): Promise<void> {
  return run(c, (q) => {
    q.get(sql`SELECT 1`);
  });
}

/** Tags of embedded migrations the database has not applied yet; empty when it is current. */
export function pendingMigrationsOf(c: Conn): Promise<string[]> {
  return run(c, () => pendingMigrations(sqliteOf(c)));
}
