// Raw SQL on a test server's database, for the state a test sets up or inspects where the API has
// no endpoint: the same statement runs on either run of the suite (SQLite file or PostgreSQL).
import type { SQL } from "drizzle-orm";
import type { Queryable } from "../../src/db/client.ts";
import { run, runTx, type DbConn } from "../../src/db/conn.ts";
import { exec, rows } from "../../src/db/sql.ts";
import type { TestServer } from "./server.ts";

/** One connection per server, opened on first use and closed by the server's stop(). */
const conns = new WeakMap<TestServer, DbConn>();

/** The server's database as stores take it, for helpers that take a `DbConn`. */
export function databaseOf(server: TestServer): DbConn {
  let conn = conns.get(server);
  if (!conn) {
    conn = server.conn();
    conns.set(server, conn);
  }
  return conn;
}

/** Runs `body` with the server's database as drizzle (store functions, the query builder), on either dialect. */
export function onDatabase<T>(server: TestServer, body: (q: Queryable) => T | Promise<T>): Promise<T> {
  return run(databaseOf(server), body);
}

/** The same in one transaction (many rows seeded at once). */
export function inTransaction<T>(server: TestServer, body: (q: Queryable) => T | Promise<T>): Promise<T> {
  return runTx(databaseOf(server), body);
}

/** The rows of `query` on the server's database. */
export function queryRows<T = Record<string, unknown>>(server: TestServer, query: SQL): Promise<T[]> {
  return onDatabase(server, (q) => rows<T>(q, query));
}

/** The first row of `query` on the server's database, if any. */
export async function queryRow<T = Record<string, unknown>>(server: TestServer, query: SQL): Promise<T | undefined> {
  return (await queryRows<T>(server, query))[0];
}

/** Runs `query` on the server's database for its effect (an INSERT or UPDATE a test sets up state with). */
export function queryExec(server: TestServer, query: SQL): Promise<void> {
  return onDatabase(server, (q) => exec(q, query));
}
