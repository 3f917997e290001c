import { is, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { PgDatabase } from "drizzle-orm/pg-core";
import type { Database, SQLQueryBindings } from "bun:sqlite";
import type { Queryable } from "./client.ts";
import { run, type DbConn } from "./conn.ts";

/**
 * The few places where SQLite and PostgreSQL need different SQL, for store files. Everything else
 * a store writes is drizzle's query builder, which renders for either (db/conn.ts `run`).
 */

/** True when `q` runs on PostgreSQL. */
export function isPostgres(q: Queryable): boolean {
  return is(q, PgDatabase);
}

/** The rows of a raw statement. */
export async function rows<T>(q: Queryable, query: SQL): Promise<T[]> {
  if (isPostgres(q)) return ((await (q as unknown as PgDatabase<any>).execute(query)) as unknown as { rows: T[] }).rows;
  return q.all<T>(query);
}

/** The first row of a raw statement, if any. */
export async function row<T>(q: Queryable, query: SQL): Promise<T | undefined> {
  return (await rows<T>(q, query))[0];
}

/** Runs a raw statement for its effect. */
export async function exec(q: Queryable, query: SQL): Promise<void> {
  if (isPostgres(q)) await (q as unknown as PgDatabase<any>).execute(query);
  else q.run(query);
}

/** The larger of two values (SQLite's two-argument max(), PostgreSQL's greatest()), written once for both. */
export function greatest(a: SQLWrapper | number, b: SQLWrapper | number): SQL {
  return sql`(CASE WHEN ${a} >= ${b} THEN ${a} ELSE ${b} END)`;
}

/** The smaller of two values, written once for both. */
export function least(a: SQLWrapper | number, b: SQLWrapper | number): SQL {
  return sql`(CASE WHEN ${a} <= ${b} THEN ${a} ELSE ${b} END)`;
}

/**
 * Serialises, until the transaction ends, every transaction that takes the same account's lock:
 * admission (slots, wallet, quotas, reservations) and debits read, decide and write, and two of
 * them for one account must not interleave. SQLite's BEGIN IMMEDIATE already serialises every
 * writer, so there it is nothing; PostgreSQL takes a transaction-level advisory lock keyed by the
 * account (held by whichever API or worker node runs the transaction). Call it inside `withTx`.
 */
export async function lockAccount(q: Queryable, userId: string): Promise<void> {
  await lockNamed(q, `account:${userId}`);
}

/**
 * The same kind of lock for a decision not about one account (the first-run admin, made once by
 * whichever of several nodes starting at once gets there first). Call it inside `withTx`/`runTx`.
 */
export async function lockNamed(q: Queryable, name: string): Promise<void> {
  if (!isPostgres(q)) return;
  await exec(q, sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`);
}

/** A raw statement runner on the connection under `q` (the open transaction's, when `q` is one), for a library that writes its own SQL in our transaction (pg-boss's send); PostgreSQL only. */
export function pgExecutorOf(q: Queryable): { executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }> } {
  if (!isPostgres(q)) throw new Error("pgExecutorOf is for PostgreSQL");
  const client = (q as unknown as { $client: { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> } }).$client;
  return { executeSql: (text, values) => client.query(text, values) };
}

/**
 * Appends `rows` (values in `columns`' order) to `table`, for a store that writes many small rows at
 * once off the request path (the audit trail's batches): drizzle's builder spends more building a
 * 200-row insert than SQLite spends running it. SQLite: one cached prepared statement run per row
 * (inside the caller's transaction); PostgreSQL: one parameterized multi-row INSERT. `table` and
 * `columns` are the caller's constants, never input.
 */
export async function insertRows(q: Queryable, table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<void> {
  if (rows.length === 0) return;
  const names = columns.map((column) => `"${column}"`).join(", ");
  if (isPostgres(q)) {
    let n = 0;
    const tuples = rows.map(() => `(${columns.map(() => `$${++n}`).join(", ")})`).join(", ");
    await pgExecutorOf(q).executeSql(`INSERT INTO "${table}" (${names}) VALUES ${tuples}`, rows.flat());
    return;
  }
  const statement = (q as unknown as { $client: Database }).$client.query(`INSERT INTO "${table}" (${names}) VALUES (${columns.map(() => "?").join(", ")})`);
  for (const row of rows) statement.run(...(row as SQLQueryBindings[]));
}

/** A value insertRows writes. */
export type SqlValue = string | number | null;

/**
 * Runs `body` unless another node is running the task `name` right now; answers false when it was
 * skipped. For a periodic task that many nodes start (the retention sweep) but one should do at a
 * time: on PostgreSQL a transaction of its own takes `pg_try_advisory_xact_lock` and stays open,
 * holding it, while `body` works through its own transactions; it ends (and the lock with it) when
 * `body` settles. On SQLite there is one node, so `body` always runs.
 */
export async function exclusively(c: DbConn, name: string, body: () => Promise<void>): Promise<boolean> {
  if (c.dialect !== "postgres") {
    await body();
    return true;
  }
  const holder = await c.begin();
  try {
    const got = await run(holder, (q) => row<{ locked: boolean }>(q, sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) AS locked`));
    if (!got?.locked) return false;
    await body();
    return true;
  } finally {
    // Nothing was written in it: ending it only releases the lock.
    await holder.rollback();
  }
}
