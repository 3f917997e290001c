// verbatim backup and restore (issue 13, operations; issue 20, items 6 and 13): a backup taken
// while the server runs, restored into a fresh folder and served by a fresh server, with meetings,
// transcripts, reports, documents, webhook endpoints, ledger lines and the token-signing key (an
// OAuth token issued before the backup still works) all there; restore is all or nothing: hostile
// archives (links, devices, `..`, absolute paths, setuid, databases that are not ours) are refused
// with one line and leave the target exactly as it was, and a running server's data dir is refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Header, x as extract } from "tar";
import { BUN, createUserWithKey, endedJob, ROOT, runCli, startServer, type TestServer } from "../helpers/server.ts";
import { createTestDatabase, dropTestDatabase, onPostgres } from "../support/postgres.ts";
import { LOOPBACK_CA_FILE, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

// The data dir's backup and restore are SQLite's: the archive holds the SQLite file (VACUUM INTO)
// and restore rebuilds a data dir around it. On PostgreSQL the database is pg_dump's, tested below.
const sqliteTest = test.skipIf(onPostgres);
const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const scratch = mkdtempSync(join(tmpdir(), "verbatim-backup-"));
const ARGS = ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000", "--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE];
let original: TestServer;
let receiver: Receiver;
let key: string;
let meetingId: string;
let documentId: string;
let endpointId: string;
let oauthToken: string;

beforeAll(async () => {
  receiver = startReceiver();
  original = await startServer({ args: ARGS, env: { TEST_ENGINE_BEHAVIOR: "" }, dataDir: join(scratch, "original") });
  key = await createUserWithKey(original, "archivist@firm.example");
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "m.wav");
  form.append("title", "Conseil d'administration");
  const meeting = (await (await original.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as any;
  meetingId = meeting.id;
  const wait = async (jobId: string) => {
    const job = await endedJob(original, key, jobId, 15_000);
    expect(job.status).toBe("completed");
    return job;
  };
  await wait(meeting.job.id);
  const doc = (await (await original.api(`/api/v1/meetings/${meetingId}/documents`, { method: "POST", key, json: { template_id: "tpl_minutes" } })).json()) as any;
  documentId = (await wait(doc.id)).document_id;
  expect((await original.api(`/api/v1/documents/${documentId}?format=pdf`, { key })).status).toBe(200);
  endpointId = ((await (await original.api("/api/v1/webhook_endpoints", { method: "POST", key, json: { url: receiver.url, events: ["*"] } })).json()) as any).id;
}, 60_000);
afterAll(async () => {
  await original.stop();
  receiver.stop();
  rmSync(scratch, { recursive: true, force: true });
});

sqliteTest("backup while the server runs, restore into a fresh folder, and a fresh server serves everything", async () => {
  const archive = join(scratch, "verbatim.tar.gz");
  const backup = await runCli(["backup", "--to", archive, "--data-dir", original.dataDir]);
  expect(backup.code).toBe(0);
  expect(backup.stdout).toContain("backup written");
  expect(statSync(archive).mode & 0o077).toBe(0);

  // An OAuth access token issued before the backup: signed with the key in the data dir's oauth/.
  const minted = await original.admin("token", "create", "--email", "archivist@firm.example", "--scopes", "all", "--json");
  expect(minted.code).toBe(0);
  oauthToken = (JSON.parse(minted.stdout) as { access_token: string }).access_token;
  expect((await original.api("/api/v1/me", { key: oauthToken })).status).toBe(200);

  const restoredDir = join(scratch, "restored");
  const restore = await runCli(["restore", "--from", archive, "--data-dir", restoredDir]);
  expect(restore.stderr).toBe("");
  expect(restore.code).toBe(0);
  expect(statSync(join(restoredDir, "verbatim.db")).mode & 0o077).toBe(0);

  // What a killed restore or backup leaves in a data dir (a staging folder) is swept at start.
  for (const leftover of [".restore-killed", ".backup-killed"]) {
    mkdirSync(join(restoredDir, leftover));
    writeFileSync(join(restoredDir, leftover, "verbatim.db"), "staged copy");
  }
  const restored = await startServer({ args: ARGS, env: { TEST_ENGINE_BEHAVIOR: "" }, dataDir: restoredDir });
  try {
    expect(readdirSync(restoredDir).filter((name) => name.startsWith("."))).toEqual([]);
    const meeting = (await (await restored.api(`/api/v1/meetings/${meetingId}`, { key })).json()) as any;
    expect(meeting).toMatchObject({ id: meetingId, title: "Conseil d'administration", status: "completed", has_transcript: true, has_summary: true });
    expect(meeting.documents.map((d: any) => d.id)).toEqual([documentId]);
    const transcript = (await (await restored.api(`/api/v1/meetings/${meetingId}/transcript`, { key })).json()) as any;
    expect(transcript.segments.length).toBeGreaterThan(0);
    const pdf = await restored.api(`/api/v1/documents/${documentId}?format=pdf`, { key });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("x-render-cache")).toBe("hit"); // the render came along
    const endpoints = (await (await restored.api("/api/v1/webhook_endpoints", { key })).json()) as any;
    expect(endpoints.data.map((e: any) => e.id)).toEqual([endpointId]);
    const before = (await (await original.api("/api/v1/usage/ledger", { key })).json()) as any;
    const after = (await (await restored.api("/api/v1/usage/ledger", { key })).json()) as any;
    expect(after.data.map((l: any) => l.id)).toEqual(before.data.map((l: any) => l.id));
    expect(after.data.length).toBeGreaterThanOrEqual(3); // transcription, report, document
    // The recording itself came along: a new document from it works, and so would reprocessing.
    expect(statSync(join(restoredDir, "meetings", meetingId, "recording")).size).toBe(statSync(join(original.dataDir, "meetings", meetingId, "recording")).size);
    // The token-signing key came along: the token issued before the backup still authenticates.
    const me = await restored.api("/api/v1/me", { key: oauthToken });
    expect(me.status).toBe(200);
    expect((await me.json()) as any).toMatchObject({ user: { email: "archivist@firm.example" }, credential: { type: "oauth" } });
  } finally {
    await restored.stop();
  }
}, 120_000);

sqliteTest("restore refuses a non-empty folder without --force, and a file that is not a backup", async () => {
  const archive = join(scratch, "again.tar.gz");
  expect((await runCli(["backup", "--to", archive, "--data-dir", original.dataDir])).code).toBe(0);
  const busy = join(scratch, "busy");
  expect((await runCli(["restore", "--from", archive, "--data-dir", busy])).code).toBe(0);
  const refused = await runCli(["restore", "--from", archive, "--data-dir", busy]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("not empty");
  writeFileSync(join(busy, "stray.txt"), "not in the backup");
  expect((await runCli(["restore", "--from", archive, "--data-dir", busy, "--force"])).code).toBe(0);
  // --force replaced the contents: what the archive does not hold is gone, nothing is left staged.
  expect(readdirSync(busy).sort()).toEqual(["meetings", "oauth", "verbatim.db"]);
  expect(readdirSync(scratch).filter((name) => name.startsWith("."))).toEqual([]);

  const junk = join(scratch, "junk.tar.gz");
  writeFileSync(junk, "not an archive");
  const notBackup = await runCli(["restore", "--from", junk, "--data-dir", join(scratch, "never")]);
  expect(notBackup.code).toBe(1);
  expectRefusal(notBackup, "not a readable Verbatim backup");
  expect(existsSync(join(scratch, "never"))).toBe(false);
}, 60_000);


// ---- Hostile archives: each refused, with one line, and the target left exactly as it was. ----

interface ArchiveEntry {
  path: string;
  type: "File" | "Directory" | "SymbolicLink" | "Link" | "CharacterDevice" | "FIFO";
  mode?: number;
  body?: Uint8Array;
  linkpath?: string;
}

/** A gzip tar written entry by entry with the tar package's own header encoder (any type, path or mode). */
function buildArchive(file: string, entries: ArchiveEntry[]): string {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? new Uint8Array(0));
    const header = new Header({
      path: entry.path,
      type: entry.type,
      mode: entry.mode ?? (entry.type === "Directory" ? 0o700 : 0o600),
      size: entry.type === "File" ? body.length : 0,
      mtime: new Date(),
      uid: 0,
      gid: 0,
      uname: "",
      gname: "",
      linkpath: entry.linkpath,
      devmaj: entry.type === "CharacterDevice" ? 1 : 0,
      devmin: entry.type === "CharacterDevice" ? 3 : 0,
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (entry.type === "File" && body.length) blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  writeFileSync(file, Bun.gzipSync(Buffer.concat(blocks)));
  return file;
}

/** Every entry under `dir`: its path, type, mode and content hash, to compare a tree before and after. */
function treeState(dir: string): string[] {
  const lines: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    const rel = relative(dir, path) || ".";
    if (stat.isDirectory()) {
      lines.push(`${rel} dir ${(stat.mode & 0o7777).toString(8)}`);
      for (const name of readdirSync(path)) visit(join(path, name));
    } else {
      const hash = stat.isFile() ? createHash("sha256").update(readFileSync(path)).digest("hex") : "-";
      lines.push(`${rel} ${stat.isFile() ? "file" : "other"} ${(stat.mode & 0o7777).toString(8)} ${hash}`);
    }
  };
  visit(dir);
  return lines.sort();
}

function expectRefusal(result: { code: number; stderr: string }, reason: string) {
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split("\n");
  expect(lines).toHaveLength(1); // one line: no stack trace
  expect(lines[0]).toContain(reason);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

let validDatabase: Uint8Array;
let target: string;
let targetBefore: string[];

/** What a real backup holds, in entries: the database, an oauth/ and a meeting folder with a recording. */
function backupEntries(database: Uint8Array = validDatabase): ArchiveEntry[] {
  return [
    { path: "verbatim.db", type: "File", body: database },
    { path: "oauth/", type: "Directory" },
    { path: "meetings/", type: "Directory" },
    { path: "meetings/m1/", type: "Directory" },
    { path: "meetings/m1/recording", type: "File", body: new TextEncoder().encode("RIFF....") },
  ];
}

/** A copy of the valid database, changed by `change` (run on it with SQLite). */
function changedDatabase(change: (db: Database) => void): Uint8Array {
  const dir = mkdtempSync(join(scratch, "db-"));
  const path = join(dir, "verbatim.db");
  writeFileSync(path, validDatabase);
  const db = new Database(path);
  change(db);
  db.close();
  const bytes = readFileSync(path);
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

describe.skipIf(onPostgres)("hostile archives are refused with one line, and leave the target exactly as it was", () => {
  let scratchBefore: string[];
  beforeAll(async () => {
    const archive = join(scratch, "for-hostile.tar.gz");
    expect((await runCli(["backup", "--to", archive, "--data-dir", original.dataDir])).code).toBe(0);
    const unpacked = mkdtempSync(join(scratch, "unpacked-"));
    await extract({ file: archive, cwd: unpacked });
    validDatabase = readFileSync(join(unpacked, "verbatim.db"));
    rmSync(unpacked, { recursive: true, force: true });
    target = join(scratch, "target");
    expect((await runCli(["restore", "--from", archive, "--data-dir", target])).code).toBe(0);
    rmSync(archive);
    writeFileSync(join(target, "notes-of-the-operator.txt"), "kept unless a restore succeeds");
    targetBefore = treeState(target);
    scratchBefore = readdirSync(scratch).sort();
  }, 60_000);

  async function expectRefusedUnchanged(name: string, entries: ArchiveEntry[], reason: string) {
    const hostile = buildArchive(join(scratch, `hostile-${name}.tar.gz`), entries);
    try {
      const result = await runCli(["restore", "--from", hostile, "--data-dir", target, "--force"]);
      expectRefusal(result, reason);
    } finally {
      rmSync(hostile);
    }
    expect(treeState(target)).toEqual(targetBefore);
    expect(readdirSync(scratch).sort()).toEqual(scratchBefore); // nothing staged or escaped beside it
  }

  const text = (words: string) => new TextEncoder().encode(words);
  const entryCases: { name: string; entry: () => ArchiveEntry; reason: string }[] = [
    { name: "a symbolic link", entry: () => ({ path: "meetings/m1/transcript.json", type: "SymbolicLink", linkpath: "/etc/passwd" }), reason: "symbolic link" },
    { name: "a hard link", entry: () => ({ path: "meetings/m1/report.json", type: "Link", linkpath: "verbatim.db" }), reason: "hard link" },
    { name: "a character device", entry: () => ({ path: "meetings/m1/null", type: "CharacterDevice" }), reason: "device file" },
    { name: "a FIFO", entry: () => ({ path: "meetings/m1/pipe", type: "FIFO" }), reason: "FIFO" },
    { name: "a .. path", entry: () => ({ path: "meetings/../../escaped.txt", type: "File", body: text("escaped") }), reason: "leaving the data dir" },
    { name: "an absolute path", entry: () => ({ path: join(scratch, "absolute.txt"), type: "File", body: text("absolute") }), reason: "absolute path" },
    { name: "a setuid file", entry: () => ({ path: "meetings/m1/tool", type: "File", mode: 0o4755, body: text("#!/bin/sh\n") }), reason: "setuid" },
    { name: "a file outside a backup's layout", entry: () => ({ path: "etc/cron.d/job", type: "File", body: text("* * * * * root true") }), reason: "outside a backup's layout" },
  ];
  for (const { name, entry, reason } of entryCases) {
    test(`${name}, after valid entries`, async () => {
      await expectRefusedUnchanged(name.replaceAll(/\W+/g, "-"), [...backupEntries(), entry()], reason);
      expect(existsSync(join(scratch, "escaped.txt"))).toBe(false);
      expect(existsSync(join(scratch, "absolute.txt"))).toBe(false);
    }, 60_000);
  }

  const databaseCases: { name: string; database: () => Uint8Array; reason: string }[] = [
    { name: "a file that is not SQLite", database: () => text("SQLite format 3 but not really".padEnd(8192, "x")), reason: "database" },
    {
      name: "a corrupt database",
      database: () => {
        const corrupt = Buffer.from(validDatabase);
        corrupt.fill(0xa5, 4096 * 3, 4096 * 3 + 2048); // the middle of a b-tree page
        return corrupt;
      },
      reason: "database",
    },
    { name: "a database that is not Verbatim's", database: () => changedDatabase((db) => db.exec("DROP TABLE schema_migrations")), reason: "not a Verbatim database" },
    { name: "a database from a newer build", database: () => changedDatabase((db) => db.exec("INSERT INTO schema_migrations (tag, applied_at) VALUES ('9999_from_the_future', 0)")), reason: "newer Verbatim" },
    {
      name: "a database with a trigger added",
      database: () => changedDatabase((db) => db.exec("CREATE TABLE kept_aside (title TEXT); CREATE TRIGGER keep_titles BEFORE DELETE ON meetings BEGIN INSERT INTO kept_aside VALUES (old.title); END;")),
      reason: "schema",
    },
    {
      name: "a database whose index keeps deleted words",
      database: () => changedDatabase((db) => db.exec("INSERT INTO meetings_fts(meetings_fts, rank) VALUES('secure-delete', 0)")),
      reason: "settings",
    },
  ];
  for (const { name, database, reason } of databaseCases) {
    test(name, async () => {
      await expectRefusedUnchanged(name.replaceAll(/\W+/g, "-"), backupEntries(database()), reason);
    }, 60_000);
  }
});

sqliteTest("modes are stripped: what the archive says 0644, 0755 or 0777 is restored 0600 and 0700", async () => {
  const loose = buildArchive(join(scratch, "loose.tar.gz"), [
    { path: "verbatim.db", type: "File", mode: 0o666, body: validDatabase },
    { path: "oauth/", type: "Directory", mode: 0o777 },
    { path: "meetings/", type: "Directory", mode: 0o755 },
    { path: "meetings/m1/", type: "Directory", mode: 0o755 },
    { path: "meetings/m1/recording", type: "File", mode: 0o644, body: new TextEncoder().encode("RIFF....") },
  ]);
  const dir = join(scratch, "loose");
  const result = await runCli(["restore", "--from", loose, "--data-dir", dir]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const modes = treeState(dir).map((line) => line.split(" ").slice(0, 3).join(" "));
  expect(modes).toEqual(["meetings dir 700", "meetings/m1 dir 700", "meetings/m1/recording file 600", "oauth dir 700", ". dir 700", "verbatim.db file 600"].sort());
}, 60_000);

sqliteTest("restore --force refuses a data dir a running server holds, and changes nothing in it", async () => {
  const archive = join(scratch, "for-running.tar.gz");
  expect((await runCli(["backup", "--to", archive, "--data-dir", original.dataDir])).code).toBe(0);
  const before = readdirSync(original.dataDir).sort();
  const result = await runCli(["restore", "--from", archive, "--data-dir", original.dataDir, "--force"]);
  expectRefusal(result, "in use by a running Verbatim server");
  expect(readdirSync(original.dataDir).sort()).toEqual(before);
  expect((await original.api(`/api/v1/meetings/${meetingId}`, { key })).status).toBe(200);
}, 60_000);

// ---- On PostgreSQL: the storage dir, and the database by pg_dump when it is on PATH. ----

/** `verbatim backup` with this PATH (where pg_dump is looked up) and the server's database URL. */
async function backupOnPostgres(archive: string, path: string, databaseUrl = original.databaseUrl!) {
  const proc = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "backup", "--to", archive, "--data-dir", original.dataDir, "--database-url", databaseUrl], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, PATH: path },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function archiveEntries(archive: string): Promise<string[]> {
  const unpacked = mkdtempSync(join(scratch, "listed-"));
  try {
    await extract({ file: archive, cwd: unpacked });
    return readdirSync(unpacked, { recursive: true, encoding: "utf8" }).sort();
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }
}

test.skipIf(!onPostgres)("with pg_dump on PATH: the database dumped into the archive (pg_restore reads it back, the meeting there) with the storage's files and signing key", async () => {
  const archive = join(scratch, "pg.tar.gz");
  const result = await backupOnPostgres(archive, process.env.PATH!);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("backup written");
  expect(result.stdout).toMatch(/the database: dumped by \S*pg_dump into verbatim\.pgdump/);
  expect(statSync(archive).mode & 0o077).toBe(0);
  const entries = await archiveEntries(archive);
  expect(entries).toEqual(expect.arrayContaining(["verbatim.pgdump", "oauth/signing-key.jwk.json", `meetings/${meetingId}`]));
  expect(entries).not.toContain("verbatim.db");
  // No staging folder is left in the storage dir.
  expect(readdirSync(original.dataDir).filter((name) => name.startsWith(".backup-"))).toEqual([]);

  // The dump restores into an empty database, and holds the meeting.
  const unpacked = mkdtempSync(join(scratch, "pg-unpacked-"));
  const restored = createTestDatabase("restored", { empty: true });
  try {
    await extract({ file: archive, cwd: unpacked });
    const pgRestore = Bun.spawnSync(["pg_restore", "--no-owner", `--dbname=${restored}`, join(unpacked, "verbatim.pgdump")], { stderr: "pipe" });
    expect(pgRestore.stderr.toString()).toBe("");
    expect(pgRestore.exitCode).toBe(0);
    const found = Bun.spawnSync(["psql", restored, "-qAtc", `SELECT title FROM meetings WHERE id = '${meetingId}'`], { stdout: "pipe" });
    expect(found.stdout.toString().trim()).toBe("Conseil d'administration");
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
    dropTestDatabase(restored);
  }
}, 60_000);

test.skipIf(!onPostgres)("without pg_dump on PATH: the storage only, and it says to back the database up with pg_dump", async () => {
  const archive = join(scratch, "pg-storage-only.tar.gz");
  const emptyPath = mkdtempSync(join(scratch, "no-tools-"));
  const result = await backupOnPostgres(archive, emptyPath);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("the database is NOT in this backup (pg_dump is not on PATH): back it up with pg_dump");
  const entries = await archiveEntries(archive);
  expect(entries).toEqual(expect.arrayContaining(["oauth/signing-key.jwk.json", `meetings/${meetingId}`]));
  expect(entries.filter((e) => e.startsWith("verbatim."))).toEqual([]);
}, 60_000);

test.skipIf(!onPostgres)("the database password goes to pg_dump in PGPASSWORD, never in its argv nor in any output", async () => {
  // A stand-in pg_dump that writes down how it was called, and a dump.
  const tools = mkdtempSync(join(scratch, "fake-pg-dump-"));
  const calls = join(tools, "calls.json");
  writeFileSync(
    join(tools, "pg_dump"),
    `#!${BUN}\nconst file = process.argv.find((a) => a.startsWith("--file="))!.slice(7);\nawait Bun.write(file, "PGDMP");\nawait Bun.write(${JSON.stringify(calls)}, JSON.stringify({ argv: process.argv.slice(2), password: process.env.PGPASSWORD }));\n`,
    { mode: 0o755 },
  );
  const archive = join(scratch, "pg-fake.tar.gz");
  const url = new URL(original.databaseUrl!);
  url.username = "vb_ops";
  url.password = "Sup3r-s3cret/pw";
  const result = await backupOnPostgres(archive, tools, url.toString());
  expect(result.code).toBe(0);
  const call = JSON.parse(readFileSync(calls, "utf8")) as { argv: string[]; password: string };
  expect(call.password).toBe("Sup3r-s3cret/pw");
  expect(call.argv.join(" ")).not.toContain("Sup3r");
  expect(call.argv).toContain("--format=custom");
  expect(call.argv.find((a) => a.startsWith("--dbname="))).toContain("vb_ops@");
  expect(result.stdout + result.stderr).not.toContain("Sup3r");
}, 60_000);
