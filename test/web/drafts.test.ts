// Draft meetings over real HTTP (issue 14): the recorder's and the resumable uploader's protocol.
// Parts arrive in any order and again after a cut, finishing needs every part (and the declared
// size), the joined recording is the original's bytes, and only the owner with the session's
// CSRF token can add to a draft.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { count, eq } from "drizzle-orm";
import { run, type DbConn } from "../../src/db/conn.ts";
import { draftParts, meetings } from "../../src/meetings/table.ts";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";
import { wavSizedBytes } from "../helpers/recordings.ts";

setDefaultTimeout(120_000);
type Json = any;

const FIXTURE = new Uint8Array(readFileSync(join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav")));
const PASSWORD = "correct horse battery";
const OTHER_USERS = ["stranger@firm.example", "tiny@firm.example", "lost@firm.example", "bounds@firm.example", "idle@firm.example"];
/** The least a part holds unless it is the last (meetings/drafts.ts). */
const MIN_PART = 256 * 1024;
let server: TestServer;
/** The server's database, to read a draft's part rows and age a draft as idle days would. */
let conn: DbConn;
let key: string;

/** How many part rows a draft has in draft_parts. */
async function partRows(id: string): Promise<number> {
  return (await run(conn, (q) => q.select({ n: count() }).from(draftParts).where(eq(draftParts.meetingId, id))))[0]!.n;
}

beforeAll(async () => {
  server = await startServer({
    args: [
      "--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10",
      // Per-account draft bounds small enough to reach, and a sweep every second.
      "--max-open-drafts", "3", "--max-draft-bytes", "3000000", "--sweep-interval", "1",
    ],
  });
  conn = server.conn();
  key = await createUserWithKey(server, "recorder@firm.example");
  await server.admin("user", "password", "--email", "recorder@firm.example", "--password", PASSWORD);
  // One admin command per user, side by side: each is a process start, slow on a busy machine.
  await Promise.all(OTHER_USERS.map((email) => server.admin("user", "create", "--email", email, "--plan", "pro", "--password", PASSWORD)));
});
afterAll(() => server.stop());

async function signedIn(email = "recorder@firm.example") {
  const client = new CookieClient(server.url);
  await client.signIn(email, PASSWORD);
  return { client, csrf: await client.csrfToken("/settings") };
}

const put = (client: CookieClient, csrf: string | null, id: string, index: number | string, bytes: Uint8Array<ArrayBuffer>) =>
  fetch(`${server.url}/meetings/${id}/parts/${index}`, {
    method: "PUT",
    headers: { cookie: client.header(), origin: server.url, ...(csrf ? { "x-csrf-token": csrf } : {}) },
    body: bytes,
  });

test("an upload in parts, out of order and one sent twice, finishes only when whole, as the original's bytes", async () => {
  const { client, csrf } = await signedIn();
  const created = await client.post("/meetings/drafts", { kind: "upload", title: "Sent in parts", file_name: "interview.wav", language: "fr" }, { "x-csrf-token": csrf });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  // A draft is listed by the API, with no job.
  const listed = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
  expect(listed).toMatchObject({ status: "draft", source: "upload", job: null, title: "Sent in parts" });

  const third = Math.ceil(FIXTURE.length / 3);
  const parts = [FIXTURE.subarray(0, third), FIXTURE.subarray(third, 2 * third), FIXTURE.subarray(2 * third)];
  expect((await put(client, csrf, id, 2, parts[2]!)).status).toBe(204);
  expect((await put(client, csrf, id, 0, FIXTURE.subarray(0, 100))).status).toBe(400); // under the minimum, and not the last part
  const wrongCopy = FIXTURE.slice(0, parts[0]!.length);
  wrongCopy[wrongCopy.length - 1]! ^= 0xff;
  expect((await put(client, csrf, id, 0, wrongCopy)).status).toBe(204); // a first copy, wrong
  expect((await put(client, csrf, id, 0, parts[0]!)).status).toBe(204); // sent again: this copy wins
  const state = (await (await client.get(`/meetings/${id}/parts`)).json()) as Json;
  expect(state).toEqual({ status: "draft", received: [0, 2], bytes: parts[0]!.length + parts[2]!.length });

  const early = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length) }, { "x-csrf-token": csrf });
  expect(early.status).toBe(409);
  expect(await early.text()).toContain("Missing parts: 1.");
  expect((await put(client, csrf, id, 1, parts[1]!)).status).toBe(204);
  const wrongSize = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length + 1) }, { "x-csrf-token": csrf });
  expect(wrongSize.status).toBe(409);

  const finished = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length) }, { "x-csrf-token": csrf });
  expect(finished.status).toBe(303);
  expect(finished.headers.get("location")).toBe(`/meetings/${id}`);
  const audio = await client.get(`/meetings/${id}/audio`);
  expect(Buffer.from(await audio.arrayBuffer()).equals(FIXTURE)).toBe(true);
  // No more parts, no second finish.
  expect((await put(client, csrf, id, 3, new Uint8Array(5))).status).toBe(409);
  expect((await client.post(`/meetings/${id}/finish`, {}, { "x-csrf-token": csrf })).status).toBe(409);
  const deadline = Date.now() + 30_000;
  let meeting: Json;
  do {
    await Bun.sleep(100);
    meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
  } while (meeting.status !== "completed" && meeting.status !== "failed" && Date.now() < deadline);
  expect(meeting.status).toBe("completed");
  expect(meeting.job).toBeNull(); // a web app meeting
  expect(meeting.duration_seconds).toBe(29);
});

test("parts need the session's CSRF token and the owner; bounds on number and size", async () => {
  const { client, csrf } = await signedIn();
  const { id } = (await (await client.post("/meetings/drafts", { kind: "recording" }, { "x-csrf-token": csrf })).json()) as { id: string };
  const draft = (await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json;
  expect(draft).toMatchObject({ status: "draft", source: "live_recording" });
  expect((await put(client, null, id, 0, new Uint8Array(10))).status).toBe(403);
  expect((await put(client, "forged", id, 0, new Uint8Array(10))).status).toBe(403);
  expect((await put(client, csrf, id, "x", new Uint8Array(10))).status).toBe(400);
  expect((await put(client, csrf, id, 100000, new Uint8Array(10))).status).toBe(400); // past the last part number
  expect((await put(client, csrf, id, 7630, new Uint8Array(10))).status).toBe(400); // 2 GB / 256 KiB parts: 0 to 7629
  expect((await put(client, csrf, id, 0, new Uint8Array(0))).status).toBe(400);
  expect((await put(client, csrf, id, 0, new Uint8Array(16 * 1024 * 1024 + 1))).status).toBe(413);
  const stranger = await signedIn("stranger@firm.example");
  expect((await put(stranger.client, stranger.csrf, id, 0, new Uint8Array(10))).status).toBe(404);
  expect((await stranger.client.get(`/meetings/${id}/parts`)).status).toBe(404);
  expect((await stranger.client.post(`/meetings/${id}/finish`, {}, { "x-csrf-token": stranger.csrf })).status).toBe(404);
  const state = (await (await client.get(`/meetings/${id}/parts`)).json()) as Json;
  expect(state.received).toEqual([]);
  // The draft's page says what arrived and offers nothing to finish yet.
  const page = await (await client.get(`/meetings/${id}`)).text();
  expect(page).toContain("Parts of the recording received: 0");
  expect(page).not.toContain(`action="/meetings/${id}/finish"`);
});

async function newDraft(client: CookieClient, csrf: string, kind = "upload"): Promise<string> {
  const created = await client.post("/meetings/drafts", { kind, file_name: "call.wav" }, { "x-csrf-token": csrf });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

async function receivedOf(client: CookieClient, id: string): Promise<{ received: number[]; bytes: number }> {
  return (await (await client.get(`/meetings/${id}/parts`)).json()) as { received: number[]; bytes: number };
}

test("a part under the minimum is taken only as the last one: a recording cannot be thousands of tiny parts", async () => {
  const { client, csrf } = await signedIn("tiny@firm.example");
  const created = await client.post("/meetings/drafts", { kind: "recording" }, { "x-csrf-token": csrf });
  const { id, min_part_bytes } = (await created.json()) as { id: string; min_part_bytes: number };
  expect(min_part_bytes).toBe(MIN_PART);
  // A few bytes may be the whole recording (its last part)…
  expect((await put(client, csrf, id, 0, wavSizedBytes(12))).status).toBe(204);
  // …but then nothing may follow it: neither more tiny parts nor a whole one.
  let stored = 0;
  for (let index = 1; index <= 200; index++) if ((await put(client, csrf, id, index, new Uint8Array(1))).status === 204) stored++;
  expect(stored).toBe(0);
  const after = await put(client, csrf, id, 1, new Uint8Array(MIN_PART));
  expect(after.status).toBe(400);
  expect(await after.text()).toContain("send it again whole");
  expect((await receivedOf(client, id)).received).toEqual([0]);
  // Part 0 sent again whole: now a last, small part may follow, and a small part never goes before another.
  expect((await put(client, csrf, id, 0, wavSizedBytes(MIN_PART))).status).toBe(204);
  expect((await put(client, csrf, id, 1, new Uint8Array(MIN_PART - 1))).status).toBe(204);
  expect((await put(client, csrf, id, 2, new Uint8Array(MIN_PART))).status).toBe(400);
  expect((await put(client, csrf, id, 0, wavSizedBytes(12))).status).toBe(400); // part 1 lies after it
  expect(await receivedOf(client, id)).toEqual({ status: "draft", received: [0, 1], bytes: 2 * MIN_PART - 1 } as never);
  // Part numbers stop at 2 GB / 256 KiB.
  expect((await put(client, csrf, id, 7629, new Uint8Array(10))).status).toBe(400);
  expect((await put(client, csrf, id, 7630, new Uint8Array(MIN_PART))).status).toBe(400);
});

test("what a draft holds is read from its part rows, never by listing its folder; a part lost on disk is asked for again", async () => {
  const { client, csrf } = await signedIn("lost@firm.example");
  const id = await newDraft(client, csrf);
  const cut = FIXTURE.length - 1000;
  expect((await put(client, csrf, id, 0, FIXTURE.slice(0, cut))).status).toBe(204);
  expect((await put(client, csrf, id, 1, FIXTURE.slice(cut))).status).toBe(204);
  const folder = join(server.dataDir, "meetings", id, "parts");
  // Thousands of part files planted behind the server's back are not seen (a folder listing would show them).
  for (let index = 2; index < 3002; index++) writeFileSync(join(folder, String(index).padStart(6, "0")), "x");
  expect(await receivedOf(client, id)).toEqual({ status: "draft", received: [0, 1], bytes: FIXTURE.length } as never);
  expect(await (await client.get(`/meetings/${id}`)).text()).toContain("Parts of the recording received: 2");
  // A part file removed, then one changed behind its back: each is dropped at finish and asked for again.
  rmSync(join(folder, "000000"));
  expect((await receivedOf(client, id)).received).toEqual([0, 1]);
  const lost = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length) }, { "x-csrf-token": csrf });
  expect(lost.status).toBe(409);
  expect(await lost.text()).toContain("Missing parts: 0");
  expect((await receivedOf(client, id)).received).toEqual([1]);
  expect((await put(client, csrf, id, 0, FIXTURE.slice(0, cut))).status).toBe(204);
  writeFileSync(join(folder, "000001"), new Uint8Array(1000).fill(0x55)); // same size, other bytes
  const changed = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length) }, { "x-csrf-token": csrf });
  expect(changed.status).toBe(409);
  expect(await changed.text()).toContain("Missing parts: 1");
  expect((await put(client, csrf, id, 1, FIXTURE.slice(cut))).status).toBe(204);
  const finished = await client.post(`/meetings/${id}/finish`, { expected_bytes: String(FIXTURE.length) }, { "x-csrf-token": csrf });
  expect(finished.status).toBe(303);
  expect(Buffer.from(await (await client.get(`/meetings/${id}/audio`)).arrayBuffer()).equals(FIXTURE)).toBe(true);
  expect(existsSync(folder)).toBe(false);
  expect(await partRows(id)).toBe(0);
});

test("an account's open drafts are bounded in number and in bytes, with a clear refusal", async () => {
  const { client, csrf } = await signedIn("bounds@firm.example");
  const drafts = [await newDraft(client, csrf), await newDraft(client, csrf), await newDraft(client, csrf)];
  const fourth = await client.post("/meetings/drafts", { kind: "recording" }, { "x-csrf-token": csrf });
  expect(fourth.status).toBe(409);
  expect(await fourth.text()).toContain("You have 3 unfinished recordings or uploads");
  // 3,000,000 bytes in all: two drafts fill it, a part past it is refused, a part sent again replaces its first copy.
  const mb = wavSizedBytes(1_000_000);
  expect((await put(client, csrf, drafts[0]!, 0, mb)).status).toBe(204);
  expect((await put(client, csrf, drafts[0]!, 1, mb)).status).toBe(204);
  expect((await put(client, csrf, drafts[1]!, 0, mb)).status).toBe(204);
  const over = await put(client, csrf, drafts[1]!, 1, new Uint8Array(MIN_PART));
  expect(over.status).toBe(409);
  expect(await over.text()).toContain("hold 3000000 bytes; an account may keep 3000000");
  expect((await put(client, csrf, drafts[0]!, 1, mb)).status).toBe(204);
  // Deleting a draft gives its room back.
  expect((await client.post(`/meetings/${drafts[1]}/delete`, { confirm: "yes" }, { "x-csrf-token": csrf })).status).toBe(303);
  expect((await put(client, csrf, drafts[2]!, 0, mb)).status).toBe(204);
  expect((await client.post("/meetings/drafts", { kind: "recording" }, { "x-csrf-token": csrf })).status).toBe(201);
});

test("a draft nobody continues is deleted like a meeting after the idle days; its page says when, before", async () => {
  const { client, csrf } = await signedIn("idle@firm.example");
  const id = await newDraft(client, csrf);
  expect((await put(client, csrf, id, 0, wavSizedBytes(1000))).status).toBe(204);
  const touched = (at: number) => run(conn, (q) => q.update(meetings).set({ updatedAt: at }).where(eq(meetings.id, id)));
  const sixDaysAgo = Date.now() - 6 * 24 * 3600_000;
  await touched(sixDaysAgo);
  const date = (locale: string) => new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(new Date(sixDaysAgo + 7 * 24 * 3600_000));
  const page = await (await client.get(`/meetings/${id}`)).text();
  expect(page).toContain(`This draft will be deleted on ${date("en")} (UTC) unless you continue or finish it.`);
  const french = await (await client.get(`/meetings/${id}`, { "accept-language": "fr" })).text();
  expect(french).toContain(`Ce brouillon sera supprimé le ${date("fr")} (UTC)`);
  // Several sweeps (one a second) pass it by: it is not idle for 7 days yet.
  await Bun.sleep(2500);
  expect((await client.get(`/meetings/${id}`)).status).toBe(200);
  expect((await receivedOf(client, id)).received).toEqual([0]);
  await touched(Date.now() - 8 * 24 * 3600_000);
  const deadline = Date.now() + 30_000;
  while ((await client.get(`/meetings/${id}`)).status !== 404 && Date.now() < deadline) await Bun.sleep(200);
  expect((await client.get(`/meetings/${id}`)).status).toBe(404);
  expect(existsSync(join(server.dataDir, "meetings", id))).toBe(false);
  expect(await partRows(id)).toBe(0);
  expect(server.lines.some((line) => line.includes("deleted 1 draft(s) nobody continued"))).toBe(true);
});
