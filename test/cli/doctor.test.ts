// verbatim doctor (issue 13, operations): what it finds on a healthy setup, with a server running,
// and the problems it names (missing models, no ffmpeg, a damaged database), with exit status 1.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databaseArgs, runCli, startServer } from "../helpers/server.ts";
import { createTestDatabase, dropTestDatabase, onPostgres } from "../support/postgres.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-doctor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function doctor(args: string[]) {
  const result = await runCli(["doctor", "--json", ...args]);
  const findings = result.stdout.trim() ? (JSON.parse(result.stdout) as { check: string; ok: boolean; detail: string }[]) : [];
  return { ...result, findings, find: (check: string) => findings.find((f) => f.check === check) };
}

test("a healthy setup: engines, models (named as development stand-ins), ffmpeg, disk, no server running; exit 0", async () => {
  const result = await doctor(["--data-dir", join(dir, "fresh")]);
  expect(result.code).toBe(0);
  expect(result.find("gpu")?.ok).toBe(true);
  expect(result.find("whisper.cpp")?.detail).toMatch(/smart-whisper|fugood/);
  expect(result.find("model whisper")).toMatchObject({ ok: true, detail: "whisper/ggml-tiny-random.bin" });
  expect(result.find("models")?.detail).toContain("development stand-in models: transcripts and reports are not meaningful");
  expect(result.find("ffmpeg")?.detail).toStartWith("ffmpeg version");
  expect(result.find("data dir")?.detail).toBe("does not exist yet");
});

test("with a server running on the data dir: its database checks out and its lock is seen", async () => {
  const server = await startServer({ dataDir: join(dir, "served") });
  try {
    const result = await doctor(["--data-dir", server.dataDir, ...databaseArgs(server.dataDir)]);
    expect(result.code).toBe(0);
    if (onPostgres) {
      // The server's database answers, its migrations applied; its storage (the data dir) takes a probe.
      expect(result.find("database")?.detail).toMatch(/^PostgreSQL (1[5-9]|[2-9]\d)\.\d+ answers$/);
      expect(result.find("migrations")).toEqual({ check: "migrations", ok: true, detail: "all applied" });
      expect(result.find("storage")).toEqual({ check: "storage", ok: true, detail: `${server.dataDir}: a probe file written, read back and deleted` });
    } else expect(result.find("database")).toEqual({ check: "database", ok: true, detail: "integrity check ok" });
    expect(result.find("data dir")?.detail).toBe("a server is running on it (its lock is held)");
  } finally {
    await server.stop();
  }
});

// The damage is to the SQLite file's bytes; the PostgreSQL failures are the tests below.
test.skipIf(onPostgres)("missing models, no ffmpeg and a damaged database are each named; exit 1", async () => {
  const damaged = join(dir, "damaged");
  const server = await startServer({ dataDir: damaged });
  await server.stop();
  // Every committed page into the database file first: pages left in the WAL would be read from
  // there, and the damage below would miss them.
  const sqlite = new Database(join(damaged, "verbatim.db"));
  sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.close();
  // Overwrite every page after the first: the header and schema stay, the b-trees do not.
  const file = Bun.file(join(damaged, "verbatim.db"));
  const bytes = new Uint8Array(await file.arrayBuffer());
  bytes.fill(0x5a, 4096, bytes.length);
  expect(bytes.length).toBeGreaterThan(40 * 4096);
  writeFileSync(join(damaged, "verbatim.db"), bytes);

  const result = await doctor(["--data-dir", damaged, "--models-dir", join(dir, "no-models"), "--ffmpeg", "/nonexistent/ffmpeg"]);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain("problem(s)");
  expect(result.find("model whisper")).toMatchObject({ ok: false });
  expect(result.find("model whisper")?.detail).toContain("missing");
  expect(result.find("ffmpeg")?.ok).toBe(false);
  expect(result.find("database")?.ok).toBe(false);
  for (const check of ["model whisper", "ffmpeg", "database"]) expect(result.stderr).toContain(check);
});

test.skipIf(!onPostgres)("with --database-url: a database without the migrations and a storage dir that takes no file are named; exit 1", async () => {
  const empty = createTestDatabase("doctor", { empty: true });
  const notAFolder = join(dir, "storage-is-a-file");
  writeFileSync(notAFolder, "");
  try {
    const result = await doctor(["--data-dir", join(dir, "node"), "--database-url", empty, "--storage-dir", notAFolder]);
    expect(result.code).toBe(1);
    expect(result.find("database")?.ok).toBe(true);
    expect(result.find("migrations")?.ok).toBe(false);
    expect(result.find("migrations")?.detail).toMatch(/^\d+ pending \(0000_\w+, .*\): the next node to start applies them$/);
    expect(result.find("storage")?.ok).toBe(false);
    expect(result.find("storage")?.detail).toContain("ENOTDIR");
    for (const check of ["migrations", "storage"]) expect(result.stderr).toContain(check);
    // The SQLite checks are not run: there is no SQLite file to find.
    expect(result.find("database")?.detail).not.toContain("integrity");
  } finally {
    dropTestDatabase(empty);
  }
});

test.skipIf(!onPostgres)("a PostgreSQL that does not answer is a problem, and its password is never printed", async () => {
  const storage = mkdtempSync(join(dir, "storage-"));
  const result = await doctor(["--data-dir", join(dir, "node"), "--database-url", "postgres://vb_ops:Sup3r-s3cret-pw@127.0.0.1:1/verbatim", "--storage-dir", storage]);
  expect(result.code).toBe(1);
  expect(result.find("database")?.ok).toBe(false);
  expect(result.find("database")?.detail).toStartWith("PostgreSQL does not answer: ");
  expect(result.stdout + result.stderr).not.toContain("Sup3r-s3cret-pw");
  // The storage is still checked, and fine.
  expect(result.find("storage")?.ok).toBe(true);
});
