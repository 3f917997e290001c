// What the deletion tests look for: a deleted thing's words in any file of a server's data dir
// (the database, its -wal and -shm, the lock, meetings' files...), read as raw bytes while the
// server runs; and in any row of its database, on either dialect.
import { Database } from "bun:sqlite";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { sql } from "drizzle-orm";
import type { Queryable } from "../../src/db/client.ts";
import { run, type DbConn } from "../../src/db/conn.ts";
import { exec, isPostgres, rows } from "../../src/db/sql.ts";

/** Every regular file under `dir`. */
export function filesOf(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue; // removed between the listing and the look
    }
    if (stat.isDirectory()) files.push(...filesOf(path));
    else if (stat.isFile()) files.push(path);
  }
  return files;
}

/** "file: needle" for each needle found in a file of `dataDir`, as raw bytes, in any case. */
export function needlesInFiles(dataDir: string, needles: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of filesOf(dataDir)) {
    let bytes: string;
    try {
      bytes = readFileSync(file).toString("latin1").toLowerCase();
    } catch {
      continue; // removed between the listing and the read
    }
    for (const needle of needles) if (bytes.includes(needle.toLowerCase())) found.push(`${relative(dataDir, file)}: ${needle}`);
  }
  return found;
}

/** Moves every frame of the WAL into the main file and empties the WAL (retried while the server reads). */
export async function checkpointIntoMainFile(dataDir: string): Promise<void> {
  const db = new Database(join(dataDir, "verbatim.db"));
  try {
    for (let i = 0; i < 200; i++) {
      const { busy } = db.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
      if (busy === 0) return;
      await Bun.sleep(50);
    }
    throw new Error("the WAL could not be checkpointed");
  } finally {
    db.close();
  }
}

/** The tables of the database, as a name to show and the name to query (PostgreSQL: every schema's, pg-boss's included). */
async function tablesOf(q: Queryable): Promise<{ name: string; quoted: string }[]> {
  if (!isPostgres(q)) {
    const names = await rows<{ name: string }>(q, sql`SELECT name FROM sqlite_master WHERE type = 'table'`);
    return names.map(({ name }) => ({ name, quoted: `"${name}"` }));
  }
  const names = await rows<{ schema: string; name: string }>(
    q,
    sql`SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
  );
  return names.map(({ schema, name }) => ({ name: schema === "public" ? name : `${schema}.${name}`, quoted: `"${schema}"."${name}"` }));
}

/** A stored value as the text a needle is looked for in: blobs as bytes, JSON (PostgreSQL's jsonb) as JSON. */
function textOf(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("latin1");
  if (value !== null && typeof value === "object" && !(value instanceof Date)) return JSON.stringify(value);
  return String(value);
}

/**
 * "table: label" for each needle (by its label) found in a value of any row of any table of the
 * database: SQLite's FTS shadow tables, PostgreSQL's tsvector column and pg-boss's tables included.
 */
export function needlesInRows(conn: DbConn, needles: Readonly<Record<string, string>>): Promise<string[]> {
  return run(conn, async (q) => {
    const found: string[] = [];
    for (const { name, quoted } of await tablesOf(q)) {
      let all: Record<string, unknown>[];
      try {
        all = await rows<Record<string, unknown>>(q, sql.raw(`SELECT * FROM ${quoted}`));
      } catch {
        continue; // a virtual table that cannot be scanned directly (its shadow tables are)
      }
      for (const row of all) {
        for (const value of Object.values(row)) {
          const text = textOf(value).toLowerCase();
          for (const [label, needle] of Object.entries(needles)) if (text.includes(needle.toLowerCase())) found.push(`${name}: ${label}`);
        }
      }
    }
    return found;
  });
}

/** The tables that have a column of that name (the tables that name an account: `user_id`). */
export function tablesWithColumn(conn: DbConn, column: string): Promise<string[]> {
  return run(conn, async (q) => {
    const found = isPostgres(q)
      ? await rows<{ name: string }>(q, sql`SELECT table_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = ${column}`)
      : await rows<{ name: string }>(q, sql`SELECT m.name AS name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = ${column}`);
    return found.map((r) => r.name);
  });
}

/** The words of the meetings' full-text index: SQLite's FTS5 vocabulary, PostgreSQL's tsvector lexemes. */
export function indexedTerms(conn: DbConn): Promise<string[]> {
  return run(conn, async (q) => {
    if (isPostgres(q)) return (await rows<{ term: string }>(q, sql`SELECT word AS term FROM ts_stat('SELECT document FROM meetings_fts')`)).map((r) => r.term);
    await exec(q, sql`CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_terms USING fts5vocab(main, meetings_fts, row)`);
    return (await rows<{ term: string }>(q, sql`SELECT term FROM temp.fts_terms`)).map((r) => r.term);
  });
}
