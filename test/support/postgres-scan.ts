// The PostgreSQL side of data-dir-scan.ts: on the PostgreSQL run a server's rows are not in a file
// of its data dir, so a test that looks for a deleted thing's words looks in every row of every
// table of the server's database as well.
import { sql } from "drizzle-orm";
import { run, type DbConn } from "../../src/db/conn.ts";
import { rows } from "../../src/db/sql.ts";
import { needlesInFiles } from "./data-dir-scan.ts";
import { onPostgres } from "./postgres.ts";

/** "schema.table: needle" for each needle found, in any case, in the text of a row of any table of the database. */
export async function needlesInPostgresRows(conn: DbConn, needles: readonly string[]): Promise<string[]> {
  return run(conn, async (q) => {
    const tables = await rows<{ name: string }>(
      q,
      sql`SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
          WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    const found: string[] = [];
    for (const { name } of tables) {
      for (const needle of needles) {
        // A row cast to text holds every column's value (jsonb, tsvector and arrays included).
        const hit = await rows(q, sql`SELECT 1 FROM ${sql.raw(name)} AS t WHERE strpos(lower(t::text), ${needle.toLowerCase()}) > 0 LIMIT 1`);
        if (hit.length) found.push(`${name}: ${needle}`);
      }
    }
    return found;
  });
}

/**
 * Where a server still keeps any of these words: a file of its data dir (on SQLite the database and
 * its WAL are among them) or, on PostgreSQL, whose database lives elsewhere, a row of any table.
 */
export async function needlesKept(dataDir: string, conn: DbConn, needles: readonly string[]): Promise<string[]> {
  const found = needlesInFiles(dataDir, needles);
  if (onPostgres) found.push(...(await needlesInPostgresRows(conn, needles)));
  return found;
}
