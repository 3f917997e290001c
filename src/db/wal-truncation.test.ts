import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "./client.ts";
import { connOf, withTx } from "./conn.ts";
import { truncateWal, WalTruncator } from "./wal-truncation.ts";
import { tempDatabase } from "../../test/support/database.ts";
import { onPostgres } from "../../test/support/postgres.ts";

// SQLite's write-ahead log (verbatim.db-wal) and its checkpoints: SQLite only, except the last test,
// its PostgreSQL twin.

const SECRET = "Privileged-Marker-7731";
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), "verbatim-wal-"));
  dirs.push(dir);
  const path = join(dir, "verbatim.db");
  const db = openDatabase(path);
  db.$client.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
  db.$client.query("INSERT INTO notes (body) VALUES (?)").run(SECRET.repeat(20));
  const walHolds = () => readFileSync(`${path}-wal`).toString("latin1").includes(SECRET);
  return { db, path, walHolds };
}

test.skipIf(onPostgres)("a truncation after a deletion leaves no byte of the content in the WAL or the main file", () => {
  const { db, path, walHolds } = setUp();
  expect(walHolds()).toBe(true);
  db.$client.exec("DELETE FROM notes");
  const lines: string[] = [];
  const wal = new WalTruncator(connOf(db), (line) => lines.push(line));
  wal.afterDeletion();
  expect(wal.pending).toBe(false);
  expect(statSync(`${path}-wal`).size).toBe(0);
  expect(readFileSync(path).toString("latin1")).not.toContain(SECRET);
  expect(lines).toEqual([]);
  // The connection's own busy timeout is put back.
  expect(db.$client.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
  db.$client.close();
});

test.skipIf(onPostgres)("a reader on an older snapshot: the try does not wait for it, and a retry truncates once it is done", async () => {
  const { db, path, walHolds } = setUp();
  const reader = new Database(path);
  reader.exec("BEGIN");
  reader.query("SELECT count(*) FROM notes").get(); // holds the snapshot that still has the row
  db.$client.exec("DELETE FROM notes");
  const wal = new WalTruncator(connOf(db), () => {});
  const started = performance.now();
  wal.afterDeletion();
  // Not the connection's 5 s busy timeout: the event loop is not held while the reader reads.
  expect(performance.now() - started).toBeLessThan(1000);
  expect(wal.pending).toBe(true);
  expect(walHolds()).toBe(true);
  expect(await truncateWal(connOf(db))).toBe(false);
  reader.exec("COMMIT");
  reader.close();
  const deadline = Date.now() + 20_000;
  while (wal.pending && Date.now() < deadline) await Bun.sleep(20);
  expect(wal.pending).toBe(false);
  expect(statSync(`${path}-wal`).size).toBe(0);
  expect(readFileSync(path).toString("latin1")).not.toContain(SECRET);
  wal.stop();
  db.$client.close();
});

test.skipIf(onPostgres)("stop cancels a waiting retry", async () => {
  const { db, path } = setUp();
  const reader = new Database(path);
  reader.exec("BEGIN");
  reader.query("SELECT count(*) FROM notes").get();
  db.$client.exec("DELETE FROM notes");
  const wal = new WalTruncator(connOf(db), () => {});
  wal.afterDeletion();
  expect(wal.pending).toBe(true);
  wal.stop();
  expect(wal.pending).toBe(false);
  reader.exec("COMMIT");
  reader.close();
  db.$client.close();
});

test.skipIf(onPostgres)("asked while a transaction is open on the connection, the try waits for it to end, then truncates", async () => {
  const { db, path, walHolds } = setUp();
  const conn = connOf(db);
  db.$client.exec("DELETE FROM notes");
  const wal = new WalTruncator(conn, () => {});
  let end!: () => void;
  const open = withTx(conn, () => new Promise<void>((resolve) => (end = resolve)));
  await Bun.sleep(5);
  wal.afterDeletion();
  expect(wal.pending).toBe(true);
  expect(walHolds()).toBe(true);
  end();
  await open;
  expect(wal.pending).toBe(false);
  expect(statSync(`${path}-wal`).size).toBe(0);
  expect(readFileSync(path).toString("latin1")).not.toContain(SECRET);
  db.$client.close();
});

// PostgreSQL keeps its own WAL and reclaims deleted rows by vacuum: a deletion asks for nothing,
// and above all never reaches for the SQLite connection (a try would log a warning and retry).
test.skipIf(!onPostgres)("PostgreSQL: a deletion asks for no checkpoint, and nothing is retried or logged", async () => {
  const database = tempDatabase("wal");
  try {
    const lines: string[] = [];
    const wal = new WalTruncator(database.conn, (line) => lines.push(line));
    wal.afterDeletion();
    expect(wal.pending).toBe(false);
    await Bun.sleep(50);
    expect(lines).toEqual([]);
    wal.stop();
  } finally {
    await database.remove();
  }
});
