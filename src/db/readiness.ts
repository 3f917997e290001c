import { sql } from "drizzle-orm";
import { rootOf, run, type Conn } from "./conn.ts";
import { pendingMigrations } from "./migrate.ts";
import { pendingPgMigrations } from "./pg-migrate.ts";
import { row } from "./sql.ts";

/** What /readyz asks of the database, on a `Conn` (it waits for an open transaction like any caller). */

/** Resolves when the database answers a trivial query; rejects with why it did not. */
export function pingDatabase(c: Conn): Promise<void> {
  return run(c, async (q) => {
    await row(q, sql`SELECT 1`);
  });
}

/** Tags of embedded migrations the database has not applied yet; empty when it is current. */
export function pendingMigrationsOf(c: Conn): Promise<string[]> {
  const root = rootOf(c);
  if (root.dialect === "postgres") return pendingPgMigrations(root);
  return run(c, () => pendingMigrations(root.sqlite));
}

/** PostgreSQL's version as a number (150004 for 15.4): `verbatim doctor` wants 15 or later. */
export function postgresVersionNumber(c: Conn): Promise<number> {
  return run(c, async (q) => Number((await row<{ v: string }>(q, sql`SELECT current_setting('server_version_num') AS v`))?.v ?? 0));
}
