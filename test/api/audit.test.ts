// The audit trail over real HTTP (issue 23 item 4), on SQLite and on PostgreSQL: a transcript read,
// a PATCH, a failed sign-in and a key creation each leave one entry naming who (user, credential
// and its type, channel), from where (the client through the trusted proxy), when and which
// resource, and never the content; another account's trail holds none of it.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { appendAuditEntries, exportAuditEntries, type AuditRow } from "../../src/audit/store.ts";
import { systemEntry } from "../../src/audit/types.ts";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(90_000);
type Json = any;

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const PASSWORD = "correct horse battery staple";
const CLIENT = "198.51.100.7";
const TITLE = "Merger of Acme and Zenith";
let server: TestServer;
let key: string;
let otherKey: string;
let anaId: string;
let benId: string;
let meetingId: string;
const from = { "x-forwarded-for": CLIENT };

async function userId(email: string): Promise<string> {
  return (await getUserByEmail(server.conn(), email))!.id;
}

async function trailOf(accountId: string): Promise<AuditRow[]> {
  const rows: AuditRow[] = [];
  for await (const row of exportAuditEntries(server.conn(), { accountId })) rows.push(row);
  return rows;
}

/** The account's entries once `count` of them match `action` (the trail writes every 250 ms). */
async function awaitEntries(accountId: string, action: string, count = 1): Promise<AuditRow[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = (await trailOf(accountId)).filter((row) => row.action === action);
    if (found.length >= count || Date.now() > deadline) return found;
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--trusted-proxy", "127.0.0.1,::1", "--rate-limits", "pro=100000,anonymous=100000", "--sweep-interval", "1"] });
  key = await createUserWithKey(server, "ana@firm.example");
  otherKey = await createUserWithKey(server, "ben@firm.example");
  expect((await server.admin("user", "password", "--email", "ana@firm.example", "--password", PASSWORD)).code).toBe(0);
  anaId = await userId("ana@firm.example");
  benId = await userId("ben@firm.example");
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("title", TITLE);
  meetingId = ((await (await server.api("/api/v1/meetings", { method: "POST", key, body: form, headers: from })).json()) as Json).id;
  const deadline = Date.now() + 60_000;
  while (((await (await server.api(`/api/v1/meetings/${meetingId}`, { key })).json()) as Json).status !== "completed" && Date.now() < deadline) await Bun.sleep(100);
});
afterAll(() => server.stop());

/** No entry holds the meeting's title or any transcript text: ids, names of actions and addresses only. */
function expectNoContent(rows: AuditRow[], transcriptText: string[]) {
  const stored = JSON.stringify(rows);
  expect(stored).not.toContain("Acme");
  for (const words of transcriptText) expect(stored).not.toContain(words);
}

test("a transcript read through the API is one entry: the key, the api channel, the proxied client, the meeting", async () => {
  const transcript = (await (await server.api(`/api/v1/meetings/${meetingId}/transcript?format=json`, { key, headers: from })).json()) as Json;
  const texts = (transcript.segments as Json[]).map((s) => s.text as string).filter((t) => t.length > 8);
  expect(texts.length).toBeGreaterThan(0);
  const reads = await awaitEntries(anaId, "transcript.read");
  expect(reads).toHaveLength(1);
  const keyId = (await trailOf(anaId)).find((row) => row.action === "api_key.created")!.resourceId;
  expect(reads[0]).toMatchObject({
    accountId: anaId,
    actorUserId: anaId,
    credentialType: "api_key",
    credentialId: keyId,
    channel: "api",
    resourceType: "meeting",
    resourceId: meetingId,
    clientAddress: CLIENT,
    detail: { format: "json" },
  });
  expect(Math.abs(reads[0]!.at - Date.now())).toBeLessThan(60_000);
  // The upload itself, as created by the same key.
  expect((await awaitEntries(anaId, "meeting.created"))[0]).toMatchObject({ resourceId: meetingId, credentialType: "api_key", clientAddress: CLIENT });
  expectNoContent(await trailOf(anaId), texts);
});

test("a PATCH is one entry naming the fields changed, never their values", async () => {
  const patched = await server.api(`/api/v1/meetings/${meetingId}`, { method: "PATCH", key, headers: from, json: { title: "Acme board, second session", tags: ["acme"] } });
  expect(patched.status).toBe(200);
  const updates = await awaitEntries(anaId, "meeting.updated");
  expect(updates).toHaveLength(1);
  expect(updates[0]).toMatchObject({ actorUserId: anaId, credentialType: "api_key", resourceId: meetingId, clientAddress: CLIENT, detail: { fields: "tags,title" } });
  expectNoContent(await trailOf(anaId), []);
});

test("a failed sign-in is one entry of the account, with no actor and the client's address; an unknown address is kept only hashed", async () => {
  const browser = new CookieClient(server.url);
  const csrf = await browser.csrfToken("/login");
  // Refused back to the form (issue 25's post/redirect/get), with no session.
  const refused = await browser.post("/login", { _csrf: csrf, email: "ana@firm.example", password: "not the password" }, from);
  expect(refused.status).toBe(303);
  expect(refused.headers.get("location")).toStartWith("/login");
  expect(browser.cookies.has("verbatim_session")).toBe(false);
  const failed = await awaitEntries(anaId, "auth.sign_in_failed");
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({ accountId: anaId, actorUserId: null, credentialType: "web_session", credentialId: null, channel: "webapp", clientAddress: CLIENT, detail: { method: "password", reason: "wrong_password" } });

  const stranger = await browser.post("/login", { _csrf: csrf, email: "nobody@firm.example", password: "whatever it is" }, from);
  expect(stranger.status).toBe(303);
  expect(browser.cookies.has("verbatim_session")).toBe(false);
  const unknown = await awaitEntries("unknown", "auth.sign_in_failed");
  expect(unknown).toHaveLength(1);
  expect(unknown[0]!.detail).toMatchObject({ reason: "unknown_address" });
  expect(JSON.stringify(unknown)).not.toContain("nobody@");
});

test("a key created in the web app is one entry of the session, after the sign-in's", async () => {
  const browser = new CookieClient(server.url);
  expect((await browser.signIn("ana@firm.example", PASSWORD)).status).toBe(303);
  const signIn = await awaitEntries(anaId, "auth.sign_in");
  expect(signIn[0]).toMatchObject({ actorUserId: anaId, credentialType: "web_session", channel: "webapp", detail: { method: "password" } });
  const sessionId = signIn[0]!.credentialId;
  expect(sessionId).toMatch(/^[0-9a-f]{64}$/);
  expect(Object.values(Object.fromEntries(browser.cookies))).not.toContain(sessionId);
  const csrf = await browser.csrfToken("/settings/developers");
  const created = await browser.post("/settings/developers/keys", { _csrf: csrf, name: "ci", scope: "read:meetings" }, from);
  // Post/redirect/get: the key is shown once on the page the form redirects to.
  expect(created.status).toBe(303);
  expect(created.headers.get("location")).toBe("/settings/developers");
  expect(await (await browser.get("/settings/developers")).text()).toMatch(/vb_live_[0-9A-Za-z]{32,}/);
  const keys = (await awaitEntries(anaId, "api_key.created", 2)).filter((row) => row.channel === "webapp");
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatchObject({ actorUserId: anaId, credentialType: "web_session", credentialId: sessionId, resourceType: "api_key", clientAddress: CLIENT, detail: { scopes: "read:meetings" } });
  expect(keys[0]!.resourceId).toMatch(/^key_/);
  // The key made at the shell by createUserWithKey: the administrator's, no user behind it.
  const cli = (await trailOf(anaId)).filter((row) => row.action === "api_key.created" && row.channel === "cli");
  expect(cli[0]).toMatchObject({ credentialType: "admin_cli", actorUserId: null, clientAddress: null });
});

test("a change of the account's redaction default is recorded with its switches, never its case-number pattern", async () => {
  const put = await server.api("/api/v1/redaction", { method: "PUT", key, headers: from, json: { enabled: true, entities: ["email", "phone"], audio: true, case_number_pattern: "DOSSIER-\\d{4}" } });
  expect(put.status).toBe(200);
  const changed = await awaitEntries(anaId, "redaction.settings_changed");
  expect(changed).toHaveLength(1);
  expect(changed[0]).toMatchObject({ actorUserId: anaId, credentialType: "api_key", channel: "api", clientAddress: CLIENT, detail: { enabled: true, audio: true, entities: 2, case_number_pattern: true } });
  expect(JSON.stringify(changed[0])).not.toContain("DOSSIER");
  await server.api("/api/v1/redaction", { method: "PUT", key, json: { enabled: false } });
});

test("another account sees none of it, and its own reads are its own", async () => {
  expect((await server.api(`/api/v1/meetings/${meetingId}/transcript`, { key: otherKey })).status).toBe(404);
  await Bun.sleep(400);
  const ben = await trailOf(benId);
  // Ben's key, and his account's creation by the administrator (the setup's admin user create).
  expect(ben.map((row) => row.action).sort()).toEqual(["api_key.created", "user.created"]);
  expect(ben.some((row) => row.resourceId === meetingId)).toBe(false);
  expect((await trailOf(anaId)).every((row) => row.accountId === anaId)).toBe(true);
});

test("the retention sweep deletes the entries past --audit-retention-days (400 by default), and only those", async () => {
  const DAY = 24 * 3600 * 1000;
  const old = { ...systemEntry(benId, "retention.meeting_deleted", { type: "meeting", id: "mtg-401-days" }), at: Date.now() - 401 * DAY };
  const kept = { ...systemEntry(benId, "retention.meeting_deleted", { type: "meeting", id: "mtg-399-days" }), at: Date.now() - 399 * DAY };
  await appendAuditEntries(server.conn(), [old, kept], Date.now());
  const deadline = Date.now() + 15_000;
  let ids: (string | null)[] = [];
  do {
    await Bun.sleep(250);
    ids = (await trailOf(benId)).map((row) => row.resourceId);
  } while (ids.includes("mtg-401-days") && Date.now() < deadline);
  expect(ids).not.toContain("mtg-401-days");
  expect(ids).toContain("mtg-399-days");
});

test("the report, the export and a meeting object with its summary are reads; a deletion is recorded after the content is gone", async () => {
  const before = (await trailOf(anaId)).length;
  const meeting = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key, headers: from })).json()) as Json;
  expect(meeting.summary).not.toBeNull();
  expect((await server.api(`/api/v1/meetings/${meetingId}/summary?format=md`, { key, headers: from })).status).toBe(200);
  expect((await server.api(`/api/v1/meetings/${meetingId}/export?format=md`, { key, headers: from })).status).toBe(200);
  expect((await server.api(`/api/v1/meetings/${meetingId}`, { method: "DELETE", key, headers: from })).status).toBe(204);
  await awaitEntries(anaId, "meeting.deleted");
  const added = (await trailOf(anaId)).slice(before).map((row) => [row.action, row.resourceId, row.detail]);
  expect(added).toEqual([
    ["report.read", meetingId, { via: "meeting" }],
    ["report.read", meetingId, { format: "md" }],
    ["export.read", meetingId, { format: "md" }],
    ["meeting.deleted", meetingId, null],
  ]);
});
