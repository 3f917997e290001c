// The web app's text form with a transcript file (issue 23 item 5): a Teams WebVTT or a SubRip file
// is read as the API reads it (meetings/transcript-import.ts), its speakers become participants,
// and the meeting's page has no player; a malformed file is a 400 naming its line.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createUserWithKey, ROOT, settledMeeting, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);

const FIXTURES = join(ROOT, "test", "fixtures", "transcripts", "import");
const PASSWORD = "correct horse battery";
let server: TestServer;
let key: string;

type Json = any;

beforeAll(async () => {
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts"], env: { TEST_ENGINE_BEHAVIOR: "" } });
  key = await createUserWithKey(server, "typist@firm.example");
  expect((await server.admin("user", "password", "--email", "typist@firm.example", "--password", PASSWORD)).code).toBe(0);
});
afterAll(async () => {
  await server.stop();
});

async function signedIn(): Promise<CookieClient> {
  const client = new CookieClient(server.url);
  await client.signIn("typist@firm.example", PASSWORD);
  return client;
}

async function postText(browser: CookieClient, file: string, language = "en") {
  const body = new FormData();
  body.append("_csrf", await browser.csrfToken("/meetings/new"));
  body.append("language", language);
  body.append("text", "");
  body.append("text_file", new Blob([readFileSync(join(FIXTURES, file))]), file);
  return fetch(`${server.url}/meetings/text`, { method: "POST", redirect: "manual", headers: { cookie: browser.header(), origin: server.url }, body });
}

test("the form offers transcript files, in English and French", async () => {
  const browser = await signedIn();
  const page = await (await browser.get("/meetings/new")).text();
  expect(page).toContain('accept=".txt,.vtt,.srt,.sbv,text/plain,text/vtt,application/x-subrip"');
  expect(page).toContain("Or a transcript file (.vtt, .srt, .sbv, .txt, up to 1 MB)");
  const french = await (await browser.get("/meetings/new", { "accept-language": "fr" })).text();
  expect(french).toContain("Ou un fichier de transcription (.vtt, .srt, .sbv, .txt, jusqu'à 1 Mo)");
});

test("a Teams WebVTT file becomes a meeting with its speakers as participants and a report, and no player", async () => {
  const browser = await signedIn();
  const created = await postText(browser, "teams.vtt");
  expect(created.status).toBe(303);
  const id = created.headers.get("location")!.split("/").pop()!;
  const meeting = await settledMeeting(server, key, id);
  expect(meeting).toMatchObject({ status: "completed", source: "text", has_summary: true, duration_seconds: 63 });
  expect(meeting.participants.map((p: Json) => p.name)).toEqual(["Alice Martin", "Bob Dupont", "Chloé Nguyen"]);
  const page = await (await browser.get(`/meetings/${id}`)).text();
  expect(page).not.toContain("<audio");
  expect(page).toContain("Halvorsen contract is approved");
  expect(page).toContain('<span class="ts">00:01</span>');
});

test("a malformed SubRip file comes back to the form naming its line; nothing is made", async () => {
  const browser = await signedIn();
  const before = ((await (await server.api("/api/v1/meetings", { key })).json()) as Json).data.length;
  // Issue 25: back to the form (303), the file field marked and the failing line said above it.
  const refused = browser.keep(await postText(browser, "bad-timing.srt"));
  expect(refused.status).toBe(303);
  const page = await (await browser.follow(refused)).text();
  expect(page).toContain("line 6: SubRip: expected a cue timing such as 00:00:01,000 --> 00:00:04,000");
  expect(page).toContain("This transcript could not be read");
  expect(((await (await server.api("/api/v1/meetings", { key })).json()) as Json).data.length).toBe(before);
});
