// The web app's meeting and settings pages over real HTTP (issue 14): the owner's page, the
// recording in byte ranges, forms that change the meeting only with the session's CSRF token,
// another account's meeting as a 404 on every route, keys revoked in Settings refused at once,
// a password change that signs out every other session.
import { onPostgres } from "../support/postgres.ts";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { run, type DbConn } from "../../src/db/conn.ts";
import { meetings } from "../../src/meetings/table.ts";
import { ledgerLines } from "../../src/usage/table.ts";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";
import { asElementText, xmlErrors } from "../support/strict-xml.ts";
import { needlesKept } from "../support/postgres-scan.ts";

setDefaultTimeout(60_000);

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const PASSWORD = "correct horse battery";
let server: TestServer;
/** The server's database, for what the pages have no view of (ledger channels, many meetings at once). */
let conn: DbConn;
let ownerKey: string;
let meetingId: string;
const owner = () => {
  const client = new CookieClient(server.url);
  return client.signIn("owner@firm.example", PASSWORD).then(() => client);
};

type Json = any;

async function uploadMeeting(key: string, title: string): Promise<string> {
  const form = new FormData();
  form.append("file", Bun.file(FIXTURE), "meeting.wav");
  form.append("title", title);
  const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as Json;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const meeting = (await (await server.api(`/api/v1/meetings/${created.id}`, { key })).json()) as Json;
    if (meeting.status === "completed") return created.id;
    if (Date.now() > deadline || meeting.status === "failed") throw new Error(`meeting ${meeting.status}`);
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
  conn = server.conn();
  ownerKey = await createUserWithKey(server, "owner@firm.example");
  await createUserWithKey(server, "other@firm.example");
  for (const email of ["owner@firm.example", "other@firm.example"]) {
    const set = await server.admin("user", "password", "--email", email, "--password", PASSWORD);
    if (set.code !== 0) throw new Error(set.stderr);
  }
  meetingId = await uploadMeeting(ownerKey, "Board meeting");
});
afterAll(() => server.stop());

describe("the meeting page", () => {
  test("is the API's web_url: title, player, transcript lines with their times, downloads", async () => {
    const meeting = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key: ownerKey })).json()) as Json;
    expect(meeting.web_url).toBe(`${server.url}/meetings/${meetingId}`);
    const browser = await owner();
    const response = await browser.get(new URL(meeting.web_url).pathname);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain("<h1>Board meeting</h1>");
    // The navigation says where the user is.
    expect(page).toContain('<a href="/meetings" aria-current="page">');
    expect(page).toContain('<a href="/record">');
    expect(page).toContain(`<audio id="player" controls preload="metadata" src="/meetings/${meetingId}/audio">`);
    expect(page).toMatch(/<a class="ts" href="[^"]+#t=4" data-start="4"[^>]*>00:04<\/a>/);
    for (const format of ["json", "md", "txt", "srt", "vtt"]) expect(page).toContain(`/meetings/${meetingId}/transcript/${format}`);
    const srt = await browser.get(`/meetings/${meetingId}/transcript/srt`);
    // Named from the meeting's date and title (issue 25, item 5), in ASCII and in UTF-8.
    const date = meeting.recorded_at.slice(0, 10);
    expect(srt.headers.get("content-disposition")).toBe(`attachment; filename="${date} Board meeting - Transcript.srt"; filename*=UTF-8''${date}%20Board%20meeting%20%E2%80%93%20Transcript.srt`);
    expect(await srt.text()).toContain("00:00:04,000 --> ");
    const exported = await browser.get(`/meetings/${meetingId}/export/md`);
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain("Board meeting");
  });

  test("a title with characters XML forbids: the page and its text downloads hold none of them (issue 20, item 7)", async () => {
    // NUL only on SQLite: PostgreSQL's text cannot hold it, so there it is a 400 (test/api/errors.test.ts).
    const id = await uploadMeeting(ownerKey, onPostgres ? "Board \u0001\u0008\uFFFE\uD800 review" : "Board \u0001\u0008\u0000\uFFFE\uD800 review");
    const browser = await owner();
    const texts: Record<string, string> = {};
    for (const path of ["", "/transcript/md", "/transcript/txt", "/transcript/srt", "/transcript/vtt", "/report/md", "/export/md"]) {
      const response = await browser.get(`/meetings/${id}${path}`);
      expect(response.status).toBe(200);
      texts[path.replace(/\//g, "-") || "page"] = await response.text();
    }
    expect(texts.page).toContain("Board");
    expect(await xmlErrors(`<web>${Object.entries(texts).map(([name, text]) => `<text of="${name}">${asElementText(text)}</text>`).join("\n")}</web>`)).toBe("");
  });

  test("the recording is served whole or in byte ranges (206), with 416 past its end", async () => {
    const browser = await owner();
    const bytes = readFileSync(FIXTURE);
    const whole = await browser.get(`/meetings/${meetingId}/audio`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(whole.headers.get("content-type")).toBe("audio/wav");
    expect((await whole.arrayBuffer()).byteLength).toBe(bytes.length);
    const part = await browser.get(`/meetings/${meetingId}/audio`, { range: "bytes=1000-1999" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    const tail = await browser.get(`/meetings/${meetingId}/audio`, { range: "bytes=-10" });
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const past = await browser.get(`/meetings/${meetingId}/audio`, { range: `bytes=${bytes.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
  });

  test("details change only with the session's CSRF token from this site; then the API shows them", async () => {
    const browser = await owner();
    const token = await browser.csrfToken(`/meetings/${meetingId}`);
    const fields = { title: "Renamed by a forged form", tags: "x", client: "" };
    expect((await browser.post(`/meetings/${meetingId}/details`, fields)).status).toBe(403);
    expect((await browser.post(`/meetings/${meetingId}/details`, { ...fields, _csrf: "guess" })).status).toBe(403);
    const crossSite = await browser.post(`/meetings/${meetingId}/details`, { ...fields, _csrf: token }, { origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    let meeting = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key: ownerKey })).json()) as Json;
    expect(meeting.title).toBe("Board meeting");

    const saved = await browser.post(`/meetings/${meetingId}/details`, { title: "Board meeting, March", tags: "board, finance", client: "Acme", _csrf: token });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`/meetings/${meetingId}?notice=saved`);
    meeting = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key: ownerKey })).json()) as Json;
    expect(meeting.title).toBe("Board meeting, March");
    expect(meeting.tags).toEqual(["board", "finance"]);
    expect(meeting.client.name).toBe("Acme");
    // A refused value is said on the page, with the field, and nothing changes.
    // Issue 25: back to the meeting page (303), the input kept and a plain message at the field.
    const tooLong = await browser.post(`/meetings/${meetingId}/details`, { title: "t".repeat(301), tags: "", client: "", _csrf: token });
    expect(tooLong.status).toBe(303);
    const refusedPage = await (await browser.follow(tooLong)).text();
    expect(refusedPage).toContain('aria-describedby="error-title"');
    expect(refusedPage).toContain("This is too long");
    expect(refusedPage).toContain(`value="${"t".repeat(301)}"`);
    expect(refusedPage).not.toContain("Invalid request");
  });

  test("speaker names typed on the page become participants, as PATCH would make them", async () => {
    const browser = await owner();
    const token = await browser.csrfToken(`/meetings/${meetingId}`);
    const saved = await browser.post(`/meetings/${meetingId}/speakers`, { "speaker.SPEAKER_00": "Alice", "speaker.SPEAKER_01": "Bruno", _csrf: token });
    expect(saved.status).toBe(303);
    const participants = (await (await server.api(`/api/v1/meetings/${meetingId}/participants`, { key: ownerKey })).json()) as Json;
    expect(participants.data.map((p: Json) => [p.name, p.speaker_labels])).toEqual([
      ["Alice", ["SPEAKER_00"]],
      ["Bruno", ["SPEAKER_01"]],
    ]);
  });

  test("another account's meeting is a 404 on every route, and its forms change nothing", async () => {
    const other = new CookieClient(server.url);
    await other.signIn("other@firm.example", PASSWORD);
    const token = await other.csrfToken("/meetings");
    for (const path of ["", "/audio", "/progress", "/transcript/json", "/report/md", "/export/md"]) {
      const response = await other.get(`/meetings/${meetingId}${path}`);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain("Board meeting");
    }
    expect((await other.post(`/meetings/${meetingId}/details`, { title: "Mine now", _csrf: token })).status).toBe(404);
    expect((await other.post(`/meetings/${meetingId}/delete`, { confirm: "yes", _csrf: token })).status).toBe(404);
    const meeting = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key: ownerKey })).json()) as Json;
    expect(meeting.title).toBe("Board meeting, March");
    // Not a meeting id at all: the same 404 page.
    expect((await other.get("/meetings/not-a-uuid")).status).toBe(404);
  });

  test("upload through the web form: only with the CSRF token; the meeting is the user's", async () => {
    const browser = await owner();
    const token = await browser.csrfToken("/meetings/new");
    const form = () => {
      const body = new FormData();
      body.append("file", Bun.file(FIXTURE), "from-the-browser.wav");
      body.append("title", "");
      return body;
    };
    const send = (query: string) =>
      fetch(`${server.url}/meetings/new${query}`, { method: "POST", redirect: "manual", headers: { cookie: browser.header(), origin: server.url }, body: form() });
    expect((await send("")).status).toBe(403);
    const created = await send(`?_csrf=${encodeURIComponent(token)}`);
    expect(created.status).toBe(303);
    const id = created.headers.get("location")!.split("/").pop()!;
    const meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key: ownerKey })).json()) as Json;
    // The empty title field means "none given": the file's name stands in.
    expect(meeting.title).toBe("from-the-browser");
    const list = (await (await server.api("/api/v1/meetings", { key: ownerKey })).json()) as Json;
    expect(list.data.filter((m: Json) => m.title === "from-the-browser").length).toBe(1);
    // A web app meeting: no job in the API (SPEC 2), and its job is not listed by GET /v1/jobs.
    expect(meeting.job).toBeNull();
    const apiMeeting = (await (await server.api(`/api/v1/meetings/${meetingId}`, { key: ownerKey })).json()) as Json;
    expect(apiMeeting.job).not.toBeNull();
    const jobs = (await (await server.api("/api/v1/jobs?limit=100", { key: ownerKey })).json()) as Json;
    expect(jobs.data.some((j: Json) => j.meeting_id === meetingId)).toBe(true);
    expect(jobs.data.some((j: Json) => j.meeting_id === id)).toBe(false);
    // Its processing is metered on the web app's channel, never the API's.
    const deadline = Date.now() + 30_000;
    while ((await (await server.api(`/api/v1/meetings/${id}`, { key: ownerKey })).json() as Json).status !== "completed" && Date.now() < deadline) await Bun.sleep(100);
    const channels = await run(conn, (q) => q.selectDistinct({ channel: ledgerLines.channel }).from(ledgerLines).where(eq(ledgerLines.meetingId, id)));
    expect(channels).toEqual([{ channel: "webapp" }]);
  });

  test("a pasted text transcript becomes a meeting: its speakers are participants, and it gets a report without audio", async () => {
    const browser = await owner();
    const token = await browser.csrfToken("/meetings/new");
    const body = new FormData();
    body.append("_csrf", token);
    body.append("title", "Typed minutes");
    body.append("language", "en");
    body.append("text", "[00:00:03] Alice Martin: We approve the zeppelin budget.\nBob: Agreed.\nAnd the timeline too.");
    body.append("text_file", new Blob([]), "");
    const post = (form: FormData) => fetch(`${server.url}/meetings/text`, { method: "POST", redirect: "manual", headers: { cookie: browser.header(), origin: server.url }, body: form });
    const created = await post(body);
    expect(created.status).toBe(303);
    const id = created.headers.get("location")!.split("/").pop()!;
    const deadline = Date.now() + 30_000;
    let meeting: Json;
    do {
      await Bun.sleep(100);
      meeting = (await (await server.api(`/api/v1/meetings/${id}`, { key: ownerKey })).json()) as Json;
    } while (meeting.status !== "completed" && meeting.status !== "failed" && Date.now() < deadline);
    expect(meeting).toMatchObject({ status: "completed", source: "text", title: "Typed minutes", has_summary: true, job: null });
    expect(meeting.participants.map((p: Json) => [p.name, p.speaker_labels])).toEqual([
      ["Alice Martin", ["SPEAKER_00"]],
      ["Bob", ["SPEAKER_01"]],
    ]);
    const transcript = (await (await server.api(`/api/v1/meetings/${id}/transcript`, { key: ownerKey })).json()) as Json;
    expect(transcript.segments.map((s: Json) => [s.start, s.speaker_name, s.text])).toEqual([
      [3, "Alice Martin", "We approve the zeppelin budget."],
      [3, "Bob", "Agreed."],
      [3, "Bob", "And the timeline too."],
    ]);
    // No recording: the page shows no player, and the times are not links to audio.
    const page = await (await browser.get(`/meetings/${id}`)).text();
    expect(page).not.toContain("<audio");
    expect(page).toContain('<span class="ts">00:03</span>');
    // Without the CSRF field, or with no words, nothing is made.
    const forged = new FormData();
    forged.append("text", "Mallory: hello");
    expect((await post(forged)).status).toBe(403);
    const empty = new FormData();
    empty.append("_csrf", token);
    empty.append("text", "  \n ");
    const refused = browser.keep(await post(empty));
    expect(refused.status).toBe(303); // issue 25: back to the form, the message at the field
    expect(await (await browser.follow(refused)).text()).toContain("Paste some text first");
  });

  test("delete needs the confirmation box; then the meeting is gone from the API too, and from every file of the data dir", async () => {
    const id = await uploadMeeting(ownerKey, "To delete Wolframite");
    expect((await needlesKept(server.dataDir, conn, ["Wolframite"])).length).toBeGreaterThan(0);
    const browser = await owner();
    const token = await browser.csrfToken(`/meetings/${id}`);
    const unconfirmed = await browser.post(`/meetings/${id}/delete`, { _csrf: token });
    expect(unconfirmed.status).toBe(303); // issue 25: back to the page, saying to tick the box
    expect(await (await browser.follow(unconfirmed)).text()).toContain("Tick the box to confirm the deletion.");
    expect((await server.api(`/api/v1/meetings/${id}`, { key: ownerKey })).status).toBe(200);
    const deleted = await browser.post(`/meetings/${id}/delete`, { confirm: "yes", _csrf: token });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/meetings?notice=deleted");
    expect((await server.api(`/api/v1/meetings/${id}`, { key: ownerKey })).status).toBe(404);
    expect((await browser.get(`/meetings/${id}`)).status).toBe(404);
    // The server truncates its WAL after the deletion (db/wal-truncation.ts); polled, as a retry may be due.
    const deadline = Date.now() + 20_000;
    while ((await needlesKept(server.dataDir, conn, ["Wolframite"])).length && Date.now() < deadline) await Bun.sleep(100);
    expect(await needlesKept(server.dataDir, conn, ["Wolframite"])).toEqual([]);
  });
});

describe("the meetings list", () => {
  test("pages through older meetings with the next link, and filters by status", async () => {
    const other = new CookieClient(server.url);
    await other.signIn("other@firm.example", PASSWORD);
    const userId = (await getUserByEmail(conn, "other@firm.example"))!.id;
    const listed = Array.from({ length: 23 }, (_, i) => ({
      id: crypto.randomUUID(),
      userId,
      title: `Listed meeting ${String(i).padStart(2, "0")}`,
      status: "completed" as const,
      createdAt: 1_700_000_000_000 + i,
      updatedAt: 1_700_000_000_000 + i,
      recordedAt: 1_700_000_000_000 + i,
    }));
    await run(conn, (q) => q.insert(meetings).values(listed));
    const first = await (await other.get("/meetings")).text();
    expect(first.match(/Listed meeting \d\d/g)!.length).toBe(20);
    expect(first).toContain("Listed meeting 22");
    const next = /href="(\/meetings\?cursor=[^"]+)"/.exec(first)![1]!.replaceAll("&amp;", "&");
    const second = await (await other.get(next)).text();
    expect(second.match(/Listed meeting \d\d/g)).toEqual(["Listed meeting 02", "Listed meeting 01", "Listed meeting 00"]);
    expect(await (await other.get("/meetings?status=draft")).text()).not.toContain("Listed meeting");
    expect((await other.get("/meetings?status=nonsense")).status).toBe(400);
  });
});

describe("settings", () => {
  test("a key created in Settings works at once, and once revoked there it is refused at once", async () => {
    const browser = await owner();
    const token = await browser.csrfToken("/settings/developers");
    const created = await browser.post("/settings/developers/keys", new URLSearchParams([["_csrf", token], ["name", "CI"], ["scope", "read:meetings"], ["scope", "bogus"]]));
    // Issue 25: post/redirect/get, the key shown once on the page the form redirects to.
    expect(created.status).toBe(303);
    const shown = await browser.follow(created);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    const apiKey = /id="shown-once"[^>]* value="(vb_live_\w+)"/.exec(await shown.text())![1]!;
    expect(apiKey).toStartWith("vb_live_");
    const me = (await (await server.api("/api/v1/me", { key: apiKey })).json()) as Json;
    expect(me.credential.scopes).toEqual(["read:meetings"]); // the unknown scope was dropped
    const keyId = me.credential.id as string;
    // Another account cannot revoke it.
    const other = new CookieClient(server.url);
    await other.signIn("other@firm.example", PASSWORD);
    expect((await other.post(`/settings/developers/keys/${keyId}/revoke`, { _csrf: await other.csrfToken("/settings"), confirm: "yes" })).status).toBe(404);
    expect((await server.api("/api/v1/me", { key: apiKey })).status).toBe(200);
    const revoked = await browser.post(`/settings/developers/keys/${keyId}/revoke`, { _csrf: token, confirm: "yes" });
    expect(revoked.status).toBe(303);
    expect((await server.api("/api/v1/me", { key: apiKey })).status).toBe(401);
  });

  test("language: the pages follow the saved choice over the browser's", async () => {
    const browser = await owner();
    const token = await browser.csrfToken("/settings");
    expect((await browser.post("/settings/language", { locale: "fr", _csrf: token })).status).toBe(303);
    const page = await (await browser.get("/meetings", { "accept-language": "en" })).text();
    expect(page).toContain('<html lang="fr"');
    await browser.post("/settings/language", { locale: "", _csrf: token });
    expect(await (await browser.get("/meetings", { "accept-language": "en" })).text()).toContain('<html lang="en"');
  });

  test("a password change needs the current one, and signs out every other session", async () => {
    const elsewhere = await owner();
    const browser = await owner();
    const token = await browser.csrfToken("/settings");
    const wrong = await browser.post("/settings/password", { current: "not it at all", password: "a brand new passphrase", _csrf: token });
    // Issue 25: each refusal back to the form (303), the message at its field.
    expect(wrong.status).toBe(303);
    expect(await (await browser.follow(wrong)).text()).toContain("The current password is not right.");
    const short = await browser.post("/settings/password", { current: PASSWORD, password: "short", _csrf: token });
    expect(short.status).toBe(303);
    expect(await (await browser.follow(short)).text()).toContain("A password has 10 to 256 characters.");
    const changed = await browser.post("/settings/password", { current: PASSWORD, password: "a brand new passphrase", _csrf: token });
    expect(changed.status).toBe(303);
    expect((await elsewhere.get("/meetings")).status).toBe(303); // sent to sign in
    expect((await browser.get("/meetings")).status).toBe(200); // this browser got a fresh session
    const again = new CookieClient(server.url);
    expect((await again.signIn("owner@firm.example", "a brand new passphrase")).status).toBe(303);
    // Put it back for the other tests.
    const back = await browser.post("/settings/password", { current: "a brand new passphrase", password: PASSWORD, _csrf: await browser.csrfToken("/settings") });
    expect(back.status).toBe(303);
  });
});
