// What the deletion tests look for: a deleted thing's words in any file of a server's data dir
// (the database, its -wal and -shm, the lock, meetings' files...), read as raw bytes while the
// server runs.
import { Database } from "bun:sqlite";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

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

/**
 * "table: label" for each needle (by its label) found in a text or blob value of any row of any
 * table of `db`, FTS shadow tables included.
 */
export function needlesInRows(db: Database, needles: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const { name } of db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]) {
    let rows: Record<string, unknown>[];
    try {
      rows = db.query(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[];
    } catch {
      continue; // a virtual table that cannot be scanned directly (its shadow tables are)
    }
    for (const row of rows) {
      for (const value of Object.values(row)) {
        const text = (value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : String(value)).toLowerCase();
        for (const [label, needle] of Object.entries(needles)) if (text.includes(needle.toLowerCase())) found.push(`${name}: ${label}`);
      }
    }
  }
  return found;
}
