import { Database } from "bun:sqlite";

/**
 * Writes a consistent copy of the database at `source` to `target` (which must not exist) while
 * the server runs: SQLite's VACUUM INTO reads one transaction's view of a WAL database without
 * stopping writers; a writer holding the lock is waited for up to 10 s.
 */
export function snapshotDatabase(source: string, target: string): void {
  const db = new Database(source, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    db.prepare("VACUUM INTO ?").run(target);
  } finally {
    db.close();
  }
}
