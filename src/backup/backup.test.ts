import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { list } from "tar";
import { backupDataDir } from "./backup.ts";
import { onPostgres } from "../../test/support/postgres.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-backup-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function entriesOf(archive: string): Promise<string[]> {
  const names: string[] = [];
  await list({ file: archive, onReadEntry: (entry) => void names.push(`${entry.type} ${entry.path.replace(/\/$/, "")}`) });
  return names.sort();
}

// SQLite only: the archive holds the SQLite file (verbatim.db) beside the files; a PostgreSQL
// database is backed up by pg_dump, not into this archive.
test.skipIf(onPostgres)("with a storage dir of its own, the meetings' files come from there, as regular files under meetings/, and no staging is left", async () => {
  const dataDir = join(dir, "data");
  const storageDir = join(dir, "shared");
  mkdirSync(join(dataDir, "oauth"), { recursive: true });
  mkdirSync(join(storageDir, "meetings", "m1", "documents"), { recursive: true });
  const db = new Database(join(dataDir, "verbatim.db"));
  db.run("CREATE TABLE t (x)");
  db.close();
  writeFileSync(join(dataDir, "oauth", "signing-key.json"), "{}");
  writeFileSync(join(storageDir, "meetings", "m1", "recording"), "audio");
  writeFileSync(join(storageDir, "meetings", "m1", "documents", "d1-abc.pdf"), "pdf");
  const archive = join(dir, "backup.tar.gz");
  const { files } = await backupDataDir(dataDir, archive, storageDir);
  expect(files).toBe(4);
  const entries = await entriesOf(archive);
  expect(entries).toEqual(
    expect.arrayContaining(["File verbatim.db", "File oauth/signing-key.json", "File meetings/m1/recording", "File meetings/m1/documents/d1-abc.pdf"]),
  );
  expect(entries.some((entry) => entry.startsWith("SymbolicLink"))).toBe(false);
  expect(readdirSync(dataDir).sort()).toEqual(["oauth", "verbatim.db"]);
  expect(readdirSync(storageDir)).toEqual(["meetings"]);
});
