import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

export type Db = BunSQLiteDatabase & { $client: Database };

/**
 * The database or a transaction on it: what a service that reads and writes through drizzle
 * takes, so the same function runs inside a caller's transaction or on its own.
 */
export type Queryable = BaseSQLiteDatabase<"sync", void>;

/**
 * Opens the service database. WAL lets the admin CLI write while the server runs; the busy
 * timeout makes either side wait for the other's short write instead of failing.
 */
export function openDatabase(path: string): Db {
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  // Deleted rows (a deleted meeting's transcript, report, emails) are overwritten with zeros,
  // not left in free pages of the file for anyone who copies it.
  sqlite.exec("PRAGMA secure_delete = ON");
  // FULL: an accepted upload, job or ledger line must survive a power cut, not only a crash.
  sqlite.exec("PRAGMA synchronous = FULL");
  return drizzle({ client: sqlite }) as Db;
}
