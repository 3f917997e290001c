// The web app's own quotas (SPEC 8 rule 5, issue 14): with the API wallet empty the web app still
// works, and with its quota used up the API still would; minutes of audio and documents per month,
// counted from the ledger's webapp lines and from what the web app's jobs in flight reserve
// (issue 20): two 45-minute recordings do not both fit in 60 minutes, and a report written again or
// from a pasted transcript counts as a document.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { CookieClient } from "../helpers/web-client.ts";

setDefaultTimeout(60_000);
type Json = any;

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const PASSWORD = "correct horse battery";
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({
    args: [
      "--engines", "test/doubles/engines.ts",
      "--rate-limits", "pro=100000,anonymous=100000",
      "--allowances", "pro=0",
      "--webapp-audio-minutes", "pro=1",
      "--webapp-documents", "pro=1",
    ],
  });
  key = await createUserWithKey(server, "quota@firm.example");
  await server.admin("user", "password", "--email", "quota@firm.example", "--password", PASSWORD);
});
afterAll(() => server.stop());

async function webUpload(browser: CookieClient, path = FIXTURE, on = server): Promise<Response> {
  const token = await browser.csrfToken("/meetings/new");
  const body = new FormData();
  body.append("file", Bun.file(path), path === FIXTURE ? "quota.wav" : "long.flac");
  return fetch(`${on.url}/meetings/new?_csrf=${encodeURIComponent(token)}`, { method: "POST", redirect: "manual", headers: { cookie: browser.header(), origin: on.url }, body });
}

test("an empty API wallet does not stop the web app; its own minutes and documents do, with a page that says so", async () => {
  const api = new FormData();
  api.append("file", Bun.file(FIXTURE), "api.wav");
  expect((await server.api("/api/v1/meetings", { method: "POST", key, body: api })).status).toBe(402);

  const browser = new CookieClient(server.url);
  await browser.signIn("quota@firm.example", PASSWORD);
  const first = await webUpload(browser);
  expect(first.status).toBe(303);
  const id = first.headers.get("location")!.split("/").pop()!;
  const deadline = Date.now() + 30_000;
  while (((await (await server.api(`/api/v1/meetings/${id}`, { key })).json()) as Json).status !== "completed" && Date.now() < deadline) await Bun.sleep(100);

  // 29 s of audio is the whole 1-minute quota: the next recording is refused before its upload.
  const second = await webUpload(browser);
  expect(second.status).toBe(402);
  expect(await second.text()).toContain("web app quota of 1 minutes of audio is used up");
  const draft = await browser.post("/meetings/drafts", { kind: "recording" }, { "x-csrf-token": await browser.csrfToken("/record") });
  expect(draft.status).toBe(402);

  // Documents: one, then the quota.
  const token = await browser.csrfToken(`/meetings/${id}`);
  const template = ((await (await server.api("/api/v1/templates", { key })).json()) as Json).data[0].id;
  expect((await browser.post(`/meetings/${id}/documents`, { template_id: template, _csrf: token })).status).toBe(303);
  const again = await browser.post(`/meetings/${id}/documents`, { template_id: template, _csrf: token });
  // Issue 25: a refused form of the meeting page comes back to it (303) with the sentence.
  expect(again.status).toBe(303);
  expect(await (await browser.follow(again)).text()).toContain("quota of 1 documents");
  // Writing the report again, or a meeting from a pasted transcript, is language-model work too:
  // each counts as a document, so neither runs past the quota (issue 20).
  const regenerate = await browser.post(`/meetings/${id}/report/regenerate`, { _csrf: token });
  expect(regenerate.status).toBe(303);
  expect(await (await browser.follow(regenerate)).text()).toContain("quota of 1 documents");
  const text = await browser.post("/meetings/text", { _csrf: await browser.csrfToken("/meetings/new"), text: "Alice: the budget is approved.\nBob: good." });
  expect(text.status).toBe(402);
  expect(((await (await server.api("/api/v1/meetings", { key })).json()) as Json).data).toHaveLength(1);

  const usage = await (await browser.get("/settings/usage")).text();
  expect(usage).toContain("1 / 1 min");
  expect(usage).toContain("1 / 1");
  // The API's wallet was never touched by the web app.
  const apiUsage = (await (await server.api("/api/v1/usage", { key })).json()) as Json;
  expect(apiUsage.wallet.used).toBe(0);
});

test("60 minutes left take one 45-minute recording, not two at once: the first reserves its minutes until it ends", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "verbatim-45min-"));
  const long = join(tmp, "long.flac");
  // Its own server, where transcription takes 20 s: the first recording is still in progress when
  // the second arrives, and its deletion cancels it before anything is counted.
  const minutes = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "standard=100000,anonymous=100000", "--parallel-slots", "standard=5", "--webapp-audio-minutes", "standard=60"],
    env: { TEST_ENGINE_BEHAVIOR: "transcribe:slow=20000" },
  });
  try {
    // 45 minutes of silence: FLAC holds it in a few hundred kilobytes, and says how long it is.
    const made = Bun.spawnSync(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "2700", "-c:a", "flac", long]);
    expect(made.exitCode).toBe(0);
    const email = "minutes@firm.example";
    const minutesKey = await createUserWithKey(minutes, email, "all", "standard");
    await minutes.admin("user", "password", "--email", email, "--password", PASSWORD);
    const browser = new CookieClient(minutes.url);
    await browser.signIn(email, PASSWORD);

    const first = await webUpload(browser, long, minutes);
    expect(first.status).toBe(303);
    const firstId = first.headers.get("location")!.split("/").pop()!;
    const second = await webUpload(browser, long, minutes);
    expect(second.status).toBe(402);
    expect(await second.text()).toContain("This recording needs 45 minutes of audio");
    expect(((await (await minutes.api("/api/v1/meetings", { key: minutesKey })).json()) as Json).data).toHaveLength(1);
    expect(await (await browser.get("/settings/usage")).text()).toContain("45 in progress");

    // Deleting the first releases its minutes at once.
    expect((await minutes.api(`/api/v1/meetings/${firstId}`, { method: "DELETE", key: minutesKey })).status).toBe(204);
    const third = await webUpload(browser, long, minutes);
    expect(third.status).toBe(303);
    const thirdId = third.headers.get("location")!.split("/").pop()!;
    expect((await minutes.api(`/api/v1/meetings/${thirdId}`, { method: "DELETE", key: minutesKey })).status).toBe(204);
  } finally {
    await minutes.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
});
