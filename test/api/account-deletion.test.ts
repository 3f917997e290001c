// Account deletion (issue 20, item 1): `verbatim admin user delete` removes an account and all of
// it, and, while the server keeps running, no file of the data dir (the database, its WAL and
// shared-memory index, every other file) holds the account's email, name, meeting title,
// transcript words, correction, document prompt, webhook endpoint URL or secret. Its API key and
// web session stop working at once; another account is untouched. The command is refused while a
// running server has the account's jobs in hand, and allowed once the server is stopped.
// Real server, real SQLite files (or, on the PostgreSQL run, its database and the data dir's meeting
// files), the admin CLI as a separate process, engine doubles.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { run } from "../../src/db/conn.ts";
import { row } from "../../src/db/sql.ts";
import { databaseOf, queryRow } from "../helpers/query.ts";
import { undecodableRecording } from "../helpers/recordings.ts";
import { CookieClient } from "../helpers/web-client.ts";
import { SHARED_FIXTURES, type TestServer, endedJob, startServer } from "../helpers/server.ts";
import { checkpointIntoMainFile, needlesInFiles, needlesInRows, tablesWithColumn } from "../support/data-dir-scan.ts";
import { onPostgres } from "../support/postgres.ts";

const FIXTURE = `${SHARED_FIXTURES}/meeting-fr-2spk.wav`;
const PASSWORD = "correct horse battery staple";

const EMAIL = "marguerite.vantablack@firm.example";
const NAME = "Marguerite Vantablack";
// What the account's content looks like once stored; the doubles write the transcript
// ("segment number3 spoken here").
const MARKERS = {
  email: EMAIL,
  name: NAME,
  title: "Obsidian Heliotrope Review",
  participant: "Ysolde Farrington",
  transcript: "number3 spoken",
  correction: "Brindlewick amendment",
  documentPrompt: "Sorrowmere instructions",
  endpointUrl: "hook-quillfeather",
  endpointDescription: "Tamarisk CRM",
};
// The full-text index keeps words one by one, lowercased.
const INDEXED_WORDS = ["obsidian", "heliotrope", "brindlewick"];

const OTHER_EMAIL = "keeper@firm.example";
const OTHER_TITLE = "Bystander kept meeting";

const dataDir = mkdtempSync(join(tmpdir(), "verbatim-account-deletion-"));
let server: TestServer;
let key: string;
let userId: string;
let secret: string;
let accessToken: string;
let browser: CookieClient;
let otherKey: string;
let otherMeetingId: string;

async function createAccount(email: string, name: string): Promise<{ id: string; key: string }> {
  const user = await server.admin("user", "create", "--email", email, "--name", name, "--plan", "pro", "--password", PASSWORD, "--json");
  expect(user.code).toBe(0);
  const created = await server.admin("key", "create", "--email", email, "--name", "test", "--scopes", "all", "--json");
  expect(created.code).toBe(0);
  return { id: (JSON.parse(user.stdout) as { id: string }).id, key: (JSON.parse(created.stdout) as { key: string }).key };
}

beforeAll(async () => {
  server = await startServer({
    dataDir,
    args: ["--engines", "test/doubles/engines.ts", "--egress-allow", "127.0.0.1"],
    env: { TEST_ENGINE_BEHAVIOR: "" },
  });
  ({ id: userId, key } = await createAccount(EMAIL, NAME));
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("title", MARKERS.title);
  form.append("participants", JSON.stringify([{ name: MARKERS.participant }]));
  const response = await server.api("/api/v1/meetings", { method: "POST", key, body: form, headers: { "Idempotency-Key": crypto.randomUUID() } });
  expect(response.status).toBe(202);
  const meeting = (await response.json()) as any;
  expect((await endedJob(server, key, meeting.job.id)).status).toBe("completed");
  // What came so far goes into the main file; what comes next stays in the WAL. Deletion must clean both.
  if (!onPostgres) await checkpointIntoMainFile(dataDir);
  const corrected = await server.api(`/api/v1/meetings/${meeting.id}/transcript/segments/0`, { method: "PATCH", key, json: { text: `${MARKERS.correction} of the first segment` } });
  expect(corrected.status).toBe(200);
  const requested = await server.api(`/api/v1/meetings/${meeting.id}/documents`, { method: "POST", key, json: { prompt: `${MARKERS.documentPrompt} for the client note.`, title: "Note" } });
  expect(requested.status).toBe(202);
  expect((await endedJob(server, key, ((await requested.json()) as any).id)).status).toBe("completed");
  const endpoint = await server.api("/api/v1/webhook_endpoints", {
    method: "POST",
    key,
    json: { url: `http://127.0.0.1:9/${MARKERS.endpointUrl}`, events: ["document.failed"], description: MARKERS.endpointDescription },
  });
  expect(endpoint.status).toBe(201);
  secret = ((await endpoint.json()) as any).secret;
  expect(secret).toMatch(/^whsec_/);
  const minted = await server.admin("token", "create", "--email", EMAIL, "--scopes", "all", "--json");
  expect(minted.code).toBe(0);
  accessToken = (JSON.parse(minted.stdout) as { access_token: string }).access_token;
  expect((await server.api("/api/v1/me", { key: accessToken })).status).toBe(200);
  browser = new CookieClient(server.url);
  expect((await browser.signIn(EMAIL, PASSWORD)).status).toBe(303);
  expect((await browser.get("/meetings")).status).toBe(200);
  const transcript = await (await server.api(`/api/v1/meetings/${meeting.id}/transcript?format=txt`, { key })).text();
  expect(transcript).toContain(MARKERS.transcript);

  // Another account, which must keep everything. (Junk audio: its job fails, so it has no transcript
  // that would repeat the doubles' words.)
  ({ key: otherKey } = await createAccount(OTHER_EMAIL, "Kept Keeper"));
  const other = new FormData();
  other.append("file", new Blob([undecodableRecording()]), "junk.bin");
  other.append("title", OTHER_TITLE);
  const otherCreated = await server.api("/api/v1/meetings", { method: "POST", key: otherKey, body: other });
  expect(otherCreated.status).toBe(202);
  otherMeetingId = ((await otherCreated.json()) as any).id;
  await endedJob(server, otherKey, ((await (await server.api(`/api/v1/meetings/${otherMeetingId}`, { key: otherKey })).json()) as any).job.id);
  expect((await server.api("/api/v1/webhook_endpoints", { method: "POST", key: otherKey, json: { url: "http://127.0.0.1:9/kept-hook", events: ["document.failed"] } })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Whether the deleting transaction has committed (read on a connection of its own to the SQLite file, closed at once). */
function deletedInDatabase(): boolean {
  const db = new Database(join(dataDir, "verbatim.db"), { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM users WHERE id = ? AND deleted_at IS NOT NULL").get(userId) as { n: number }).n === 1;
  } finally {
    db.close();
  }
}

function needles(): string[] {
  return [...Object.values(MARKERS), ...INDEXED_WORDS, secret];
}

/** The command's answer says the account is deleted, and, the server still running, no file of the data dir holds any of it. */
function expectDeletedWhileRunning(result: { code: number; stdout: string; stderr: string }): void {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const answer = JSON.parse(result.stdout) as any;
  expect(answer).toMatchObject({ id: userId, email: EMAIL, deleted: true, meetings: 1 });
  expect(answer.ledger_lines_kept).toBeGreaterThan(0);
  // Still running: the files are read as they are now (on SQLite, WAL and shared memory included).
  expect(server.process.exitCode).toBeNull();
  expect(needlesInFiles(dataDir, needles())).toEqual([]);
  expect(existsSync(join(dataDir, "meetings"))).toBe(true);
}

describe("admin user delete, while the server runs", () => {
  test("before the deletion the rows hold every marker, and the data dir the meeting's transcript (so the scans can fail)", async () => {
    const labels = new Set((await needlesInRows(databaseOf(server), Object.fromEntries(needles().map((needle) => [needle, needle])))).map((f) => f.split(": ")[1]));
    expect([...labels].sort()).toEqual(needles().sort());
    expect(needlesInFiles(dataDir, [MARKERS.transcript])).not.toEqual([]);
  });

  // The SQLite file and its WAL are the data dir's; on PostgreSQL the rows live in the database server's own files.
  test.skipIf(onPostgres)("before the deletion the scans find every marker, in the main file and in the WAL (so they can fail)", () => {
    const found = needlesInFiles(dataDir, needles());
    for (const needle of needles()) expect(found.some((f) => f.endsWith(`: ${needle}`))).toBe(true);
    expect(found).toContain(`verbatim.db: ${MARKERS.title}`);
    // The last writes (an automatic checkpoint may have moved earlier ones into the main file).
    for (const marker of [MARKERS.endpointUrl, MARKERS.endpointDescription]) expect(found).toContain(`verbatim.db-wal: ${marker}`);
  });

  test("without --yes, an unconfirmed deletion deletes nothing (exit 2)", async () => {
    const refused = await server.admin("user", "delete", "--email", EMAIL);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("not confirmed: nothing was deleted");
    expect((await server.api("/api/v1/me", { key })).status).toBe(200);
  }, 30_000);

  // The WAL that a reader holds back is SQLite's; the PostgreSQL twin follows.
  test.skipIf(onPostgres)("it deletes the account; then no file of the data dir holds its email, name or content", async () => {
    // Another connection (a backup's, or the server's own while it answers a request) reads an older
    // snapshot while the command deletes: the WAL cannot be emptied then, not even when the command
    // closes its connection, so the command must wait and try again until the reader is done.
    const reader = new Database(join(dataDir, "verbatim.db"), { readonly: true });
    reader.exec("BEGIN");
    expect(reader.query("SELECT count(*) AS n FROM users WHERE email = ?").get(EMAIL)).toEqual({ n: 1 });
    const running = server.admin("user", "delete", "--email", EMAIL, "--yes", "--json");
    try {
      for (let i = 0; i < 600 && !deletedInDatabase(); i++) await Bun.sleep(50);
      expect(deletedInDatabase()).toBe(true);
      await Bun.sleep(300);
      expect(needlesInFiles(dataDir, needles()).length).toBeGreaterThan(0);
    } finally {
      reader.exec("COMMIT");
      reader.close();
    }
    expectDeletedWhileRunning(await running);
  }, 60_000);

  test.skipIf(!onPostgres)("it deletes the account; then no file of the data dir holds its email, name or content (PostgreSQL)", async () => {
    expectDeletedWhileRunning(await server.admin("user", "delete", "--email", EMAIL, "--yes", "--json"));
  }, 60_000);

  test("no row holds the account's content; the ledger stays under its id, its user row without email, name or password", async () => {
    expect(await needlesInRows(databaseOf(server), Object.fromEntries(needles().map((needle) => [needle, needle])))).toEqual([]);
    const tombstone = (await queryRow<any>(server, sql`SELECT email, name, password_hash, locale, deleted_at FROM users WHERE id = ${userId}`))!;
    expect(tombstone).toMatchObject({ email: `deleted:${userId}`, name: null, password_hash: null, locale: null });
    expect(tombstone.deleted_at).toBeGreaterThan(0);
    expect((await queryRow<{ n: number }>(server, sql`SELECT count(*) AS n FROM ledger_lines WHERE user_id = ${userId}`))!.n).toBeGreaterThan(0);
    // Nothing else of the account is left in any table that names accounts.
    const tables = await tablesWithColumn(databaseOf(server), "user_id");
    expect(tables.length).toBeGreaterThan(10);
    for (const name of tables) {
      if (name === "ledger_lines") continue;
      const left = (await queryRow<{ n: number }>(server, sql`SELECT count(*) AS n FROM ${sql.identifier(name)} WHERE user_id = ${userId}`))!.n;
      expect(`${name}: ${left}`).toBe(`${name}: 0`);
    }
  });

  test("its API key and access token answer 401, its web session is over, and it cannot sign in again", async () => {
    expect((await server.api("/api/v1/me", { key })).status).toBe(401);
    expect((await server.api("/api/v1/me", { key: accessToken })).status).toBe(401);
    const page = await browser.get("/meetings");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/login?next=%2Fmeetings");
    const again = new CookieClient(server.url);
    const signIn = await again.signIn(EMAIL, PASSWORD);
    expect(signIn.headers.get("location") ?? "").not.toBe("/meetings");
    expect((await again.get("/meetings")).status).toBe(303);
  }, 30_000);

  test("the admin commands no longer know it", async () => {
    const list = JSON.parse((await server.admin("user", "list", "--json")).stdout) as { email: string }[];
    expect(list.map((u) => u.email)).not.toContain(EMAIL);
    expect(list.map((u) => u.email)).toContain(OTHER_EMAIL);
    const again = await server.admin("user", "delete", "--email", EMAIL, "--yes");
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`no user with email ${EMAIL}`);
    const key = await server.admin("key", "create", "--email", `deleted:${userId}`, "--name", "back door", "--scopes", "all");
    expect(key.code).toBe(2);
  }, 60_000);

  test("another account keeps its key, meeting and webhook endpoint", async () => {
    const me = await server.api("/api/v1/me", { key: otherKey });
    expect(me.status).toBe(200);
    expect(JSON.stringify(await me.json())).toContain(OTHER_EMAIL);
    const meeting = await server.api(`/api/v1/meetings/${otherMeetingId}`, { key: otherKey });
    expect(meeting.status).toBe(200);
    expect(((await meeting.json()) as any).title).toBe(OTHER_TITLE);
    const endpoints = (await (await server.api("/api/v1/webhook_endpoints", { key: otherKey })).json()) as any;
    expect(endpoints.data.map((e: any) => e.url)).toEqual(["http://127.0.0.1:9/kept-hook"]);
    const kept = (await needlesInRows(databaseOf(server), { email: OTHER_EMAIL, title: OTHER_TITLE })).map((f) => f.split(": ")[1]);
    expect(new Set(kept)).toEqual(new Set(["email", "title"]));
    // On SQLite they are in the data dir's database file too (on PostgreSQL, in the database server's).
    if (!onPostgres) expect(needlesInFiles(dataDir, [OTHER_EMAIL, OTHER_TITLE]).length).toBeGreaterThan(0);
  });

  test("after the server stops, no file of the data dir holds the account's content either", async () => {
    await server.stop();
    expect(needlesInFiles(dataDir, needles())).toEqual([]);
  }, 30_000);
});

describe("admin user delete and jobs in progress", () => {
  test("refused (exit 2, nothing deleted) while a running server processes the account's job; done once it is stopped", async () => {
    const busyDir = mkdtempSync(join(tmpdir(), "verbatim-account-busy-"));
    // Transcription never ends: the job stays processing in the server's worker.
    const busy = await startServer({ dataDir: busyDir, args: ["--engines", "test/doubles/engines.ts"], env: { TEST_ENGINE_BEHAVIOR: "transcribe:hang" } });
    try {
      const email = "busy@firm.example";
      expect((await busy.admin("user", "create", "--email", email, "--plan", "pro")).code).toBe(0);
      const created = await busy.admin("key", "create", "--email", email, "--name", "test", "--scopes", "all", "--json");
      const busyKey = (JSON.parse(created.stdout) as { key: string }).key;
      const form = new FormData();
      form.append("file", Bun.file(FIXTURE), "meeting.wav");
      form.append("title", "Busy meeting");
      const response = await busy.api("/api/v1/meetings", { method: "POST", key: busyKey, body: form });
      expect(response.status).toBe(202);
      const jobId = ((await response.json()) as any).job.id;
      for (let i = 0; i < 600; i++) {
        const job = (await (await busy.api(`/api/v1/jobs/${jobId}`, { key: busyKey })).json()) as any;
        if (job.status === "processing") break;
        await Bun.sleep(100);
      }
      const refused = await busy.admin("user", "delete", "--email", email, "--yes");
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("busy@firm.example has 1 queued or processing job(s) on the running server; nothing was deleted");
      expect((await busy.api("/api/v1/me", { key: busyKey })).status).toBe(200);
      expect((await busy.api(`/api/v1/jobs/${jobId}`, { key: busyKey })).status).toBe(200);

      await busy.stop();
      // No server, no worker: the job is only a row now, deleted with the account.
      const done = await busy.admin("user", "delete", "--email", email, "--yes", "--json");
      expect(done.stderr).toBe("");
      expect(done.code).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ email, deleted: true, meetings: 1 });
      // A connection of its own, opened after the server stopped (the next stop() closes it).
      const left = await run(busy.conn(), async (q) => ({
        jobs: await row(q, sql`SELECT count(*) AS n FROM jobs`),
        meetings: await row(q, sql`SELECT count(*) AS n FROM meetings`),
        users: await row(q, sql`SELECT count(*) AS n FROM users WHERE email = ${email}`),
      }));
      expect(left).toEqual({ jobs: { n: 0 }, meetings: { n: 0 }, users: { n: 0 } });
      expect(readdirSync(join(busyDir, "meetings"))).toEqual([]);
    } finally {
      await busy.stop();
      rmSync(busyDir, { recursive: true, force: true });
    }
  }, 120_000);
});
