// The web app in a real browser (issue 14): Debian's chromium driven by playwright-core against a
// real server (engine doubles: the pages, not the engines, are under test here). Each step looks
// at what a user sees and checks the API agrees. Screenshots of the main pages go to
// test-artifacts/web/ to be looked at.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ROOT, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-en-3spk.wav");
const SHOTS = join(ROOT, "test-artifacts", "web");
const LONG_RECORDING = join(mkdtempSync(join(tmpdir(), "verbatim-browser-")), "long-meeting.wav");
const PASSWORD = "correct horse battery";
const EMAIL = "partner@firm.example";

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every URL any page of the test asked for: none may leave the server's origin. */
const requested: string[] = [];
let meetingUrl = "";
let apiKey = "";

async function signIn(into: Page, email: string, password: string) {
  await into.goto(`${server.url}/login`);
  await into.getByLabel("Email").fill(email);
  await into.getByLabel("Password").fill(password);
  await into.getByRole("button", { name: "Sign in" }).click();
  await into.waitForLoadState("load");
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"],
  });
  for (const email of [EMAIL, "other@firm.example"]) {
    const made = await server.admin("user", "create", "--email", email, "--plan", "pro", "--password", PASSWORD);
    if (made.code !== 0) throw new Error(made.stderr);
  }
  const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!executablePath) throw new Error("chromium is not installed: run npm run setup (it installs Debian's chromium)");
  // A 10-minute recording (about 19 MB): three parts for the resumable uploader.
  const long = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-stream_loop", "9", "-i", FIXTURE, "-t", "600", "-ac", "1", "-ar", "16000", LONG_RECORDING]);
  if (long.exitCode !== 0) throw new Error(long.stderr.toString());
  browser = await chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--autoplay-policy=no-user-gesture-required",
      // Chromium's fake microphone plays the fixture, for the Record page.
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
      `--use-file-for-fake-audio-capture=${FIXTURE}`,
    ],
  });
  context = await browser.newContext({ locale: "en-GB", viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await context.grantPermissions(["microphone"]);
  context.on("request", (request) => requested.push(request.url()));
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the web app in chromium", () => {
  test("sign in: a wrong password is refused, the right one opens the meetings list", async () => {
    await signIn(page, EMAIL, "wrong password here");
    expect(await page.getByRole("alert").textContent()).toContain("Wrong email or password.");
    await page.screenshot({ path: join(SHOTS, "sign-in.png") });
    await signIn(page, EMAIL, PASSWORD);
    expect(new URL(page.url()).pathname).toBe("/meetings");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Meetings");
  });

  test("upload a recording in parts that survive a dropped connection, then watch it complete without reloading", async () => {
    await page.goto(`${server.url}/meetings/new`);
    // The connection drops during the second part, once: the uploader sends that part again.
    let dropped = 0;
    await page.route(/\/parts\/1$/, (route) => (dropped++ === 0 ? route.abort("connectionreset") : route.continue()));
    const form = page.locator("form#upload");
    await form.getByLabel("Recording (audio or video, up to 2 GB: 2,000,000,000 bytes)").setInputFiles(LONG_RECORDING);
    await form.getByLabel("Title").fill("Quarterly review");
    await form.getByRole("button", { name: "Upload" }).click();
    await form.locator("progress").waitFor();
    await page.screenshot({ path: join(SHOTS, "upload.png") });
    await page.waitForURL(/\/meetings\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    await page.unroute(/\/parts\/1$/);
    expect(dropped).toBe(2); // the cut try, and the one that went through
    meetingUrl = page.url();
    // The progress island polls and reloads into the finished meeting.
    await page.locator("ol.transcript li").first().waitFor({ timeout: 60_000 });
    await page.locator("article.report").waitFor({ timeout: 60_000 });
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Quarterly review");
    expect(await page.locator("ol.transcript li").count()).toBeGreaterThan(100);
    // The server holds exactly the file that was chosen.
    const served = await page.evaluate(async (url) => (await fetch(url)).headers.get("content-length"), `${meetingUrl}/audio`);
    expect(Number(served)).toBe(statSync(LONG_RECORDING).size);
    expect(await page.locator(".badge").textContent()).toBe("Completed");
    await page.screenshot({ path: join(SHOTS, "meeting.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, "meeting-phone.png") });
    // Nothing is wider than a phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test("a transcript line's time moves the player there, and the line being played is marked", async () => {
    const line = page.locator("ol.transcript li").nth(3);
    const start = Number(await line.getAttribute("data-start"));
    expect(start).toBeGreaterThan(0);
    await line.locator("a.ts").click();
    await page.waitForFunction((s) => Math.abs((document.querySelector("audio#player") as HTMLAudioElement).currentTime - s) < 1.5, start);
    await page.waitForFunction(() => document.querySelector("ol.transcript li[aria-current=true]") !== null);
    const current = await page.locator("ol.transcript li[aria-current=true]").getAttribute("data-start");
    expect(Math.abs(Number(current) - start)).toBeLessThan(4.1);
    // The audio is served in byte ranges (206), which is what lets the browser seek.
    const ranged = await page.evaluate(async (url) => {
      const response = await fetch(url, { headers: { range: "bytes=0-99" } });
      return { status: response.status, length: (await response.arrayBuffer()).byteLength, range: response.headers.get("content-range") };
    }, `${meetingUrl}/audio`);
    expect(ranged.status).toBe(206);
    expect(ranged.length).toBe(100);
    expect(ranged.range).toMatch(/^bytes 0-99\/\d+$/);
  });

  test("create an API key in Settings, shown once, and use it against the API", async () => {
    await page.goto(`${server.url}/settings/developers`);
    await page.getByLabel("Name").fill("Reporting script");
    await page.getByRole("button", { name: "Create the key" }).click();
    apiKey = await page.locator("#shown-once").inputValue();
    expect(apiKey).toStartWith("vb_live_");
    await page.screenshot({ path: join(SHOTS, "developers.png"), fullPage: true });
    for (const [path, name] of [["/settings", "settings"], ["/settings/webhooks", "webhooks"], ["/settings/usage", "usage"], ["/meetings", "meetings"]]) {
      const response = await page.goto(`${server.url}${path}`);
      expect(response!.status()).toBe(200);
      await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    }
    const me = await server.api("/api/v1/me", { key: apiKey });
    expect(me.status).toBe(200);
    // Read scopes only by default: writing is refused.
    const write = await server.api(`/api/v1/meetings/${meetingUrl.split("/").pop()}`, { key: apiKey, method: "PATCH", json: { title: "x" } });
    expect(write.status).toBe(403);
    // Shown once: the list shows only its hint.
    await page.goto(`${server.url}/settings/developers`);
    expect(await page.content()).not.toContain(apiKey);
    expect(await page.locator("table code").first().textContent()).toBe(`vb_live_…${apiKey.slice(-4)}`);
  });

  test("rename a speaker: the page and the API's transcript carry the name", async () => {
    await page.goto(meetingUrl);
    // The speaker timeline's turns name the speaker too: the field is the textbox.
    await page.getByRole("textbox", { name: "SPEAKER_00" }).fill("Alice Martin");
    await page.getByRole("button", { name: "Save the names" }).click();
    // Saved in place (issue 25): no reload, the page says so.
    await page.locator("form#speaker-names output").filter({ hasText: "Speaker names saved." }).waitFor();
    expect(await page.locator("ol.transcript .speaker").first().textContent()).toBe("Alice Martin");
    const transcript = (await (await server.api(`/api/v1/meetings/${meetingUrl.split("/").pop()}/transcript`, { key: apiKey })).json()) as {
      segments: { speaker: string; speaker_name: string | null }[];
    };
    const named = transcript.segments.filter((s) => s.speaker === "SPEAKER_00");
    expect(named.length).toBeGreaterThan(0);
    expect(named.every((s) => s.speaker_name === "Alice Martin")).toBe(true);
  });

  test("correct a misheard line in place while the player plays; the API's transcript has the words", async () => {
    await page.goto(meetingUrl);
    await page.evaluate(() => void (document.querySelector("audio#player") as HTMLAudioElement).play());
    const line = page.locator("ol.transcript li").nth(2);
    await line.getByRole("link", { name: /Correct the line/ }).click();
    const field = line.locator("textarea");
    await field.fill("The budget for the zeppelin was approved");
    await page.screenshot({ path: join(SHOTS, "correct-line.png") });
    await field.press("Control+Enter");
    await line.locator("textarea").waitFor({ state: "detached" });
    expect(await line.locator("p").textContent()).toBe("The budget for the zeppelin was approved");
    expect(await line.getAttribute("class")).toContain("corrected");
    expect(await page.evaluate(() => (document.querySelector("audio#player") as HTMLAudioElement).paused)).toBe(false);
    const transcript = (await (await server.api(`/api/v1/meetings/${meetingUrl.split("/").pop()}/transcript`, { key: apiKey })).json()) as { segments: { text: string }[] };
    expect(transcript.segments[2]!.text).toBe("The budget for the zeppelin was approved");
    await page.evaluate(() => (document.querySelector("audio#player") as HTMLAudioElement).pause());
  });

  test("generate a document from a template and download its PDF", async () => {
    await page.goto(meetingUrl);
    // Templates are radio buttons grouped by persona (issue 25): the first of the first group.
    await page.locator("input[name=template_id]").first().check();
    await page.getByRole("button", { name: "Write the document" }).click();
    await page.waitForURL(/notice=document/);
    const pdfLink = page.locator("ul.documents a", { hasText: "PDF" }).first();
    await pdfLink.waitFor({ timeout: 60_000 });
    const [download] = await Promise.all([page.waitForEvent("download"), pdfLink.click()]);
    const path = await download.path();
    expect(readFileSync(path).subarray(0, 5).toString()).toBe("%PDF-");
    // Named from the meeting's date and title and the document's (issue 25, item 5).
    expect(download.suggestedFilename()).toMatch(/^\d{4}-\d{2}-\d{2} .+ – Action plan\.pdf$/);
  });

  test("record 20 seconds from the microphone: a draft in parts of at least 256 KiB but the last, then a completed meeting", async () => {
    // The parts the page sends: MediaRecorder's 4-second chunks are gathered up to the server's minimum part size.
    const parts: { index: number; bytes: number }[] = [];
    // Playwright does not see a Blob body's size: the page's fetch reports each part it sends.
    await page.exposeFunction("partSent", (url: string, bytes: number) => parts.push({ index: Number(/\/parts\/(\d+)$/.exec(url)?.[1]), bytes }));
    await page.addInitScript(() => {
      const send = window.fetch.bind(window);
      window.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
        // The recording's parts only (the live transcript's part still gathering goes to /live/).
        if (init?.method === "PUT" && init.body instanceof Blob && /\/parts\/\d+$/.test(String(input))) (window as unknown as { partSent(url: string, bytes: number): void }).partSent(String(input), init.body.size);
        return send(input, init);
      }) as typeof fetch;
    });
    await page.goto(`${server.url}/record`);
    await page.getByLabel("Title").fill("Recorded in the browser");
    await page.getByRole("button", { name: "Start recording" }).click();
    await page.waitForFunction(() => document.querySelector("[data-elapsed]")?.textContent === "00:20", undefined, { timeout: 30_000 });
    expect(await page.locator("meter[data-level]").evaluate((meter) => (meter as HTMLMeterElement).value)).toBeGreaterThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, "record.png") });
    await page.getByRole("button", { name: "Stop and process" }).click();
    await page.waitForURL(/\/meetings\/[0-9a-f-]{36}$/, { timeout: 30_000 });
    await page.locator("ol.transcript li").first().waitFor({ timeout: 60_000 });
    const meeting = (await (await server.api(`/api/v1/meetings/${page.url().split("/").pop()}`, { key: apiKey })).json()) as {
      status: string;
      source: string;
      duration_seconds: number;
      title: string;
    };
    expect(meeting).toMatchObject({ status: "completed", source: "live_recording", title: "Recorded in the browser" });
    // Chromium's fake microphone delivers a little less than the wall clock when the 2-core machine
    // is busy (18 s of 20 seen in CI): the bounds allow a tenth either way, as the 5-second test did.
    expect(meeting.duration_seconds).toBeGreaterThanOrEqual(17);
    expect(meeting.duration_seconds).toBeLessThanOrEqual(23);
    const last = Math.max(...parts.map((part) => part.index));
    expect(parts.length).toBeGreaterThanOrEqual(1);
    for (const part of parts) if (part.index !== last) expect(part.bytes).toBeGreaterThanOrEqual(256 * 1024);
    // The remuxed recording has a duration the player can show and seek in.
    const duration = await page.evaluate(async () => {
      const audio = document.querySelector("audio#player") as HTMLAudioElement;
      if (Number.isNaN(audio.duration)) await new Promise((resolve) => audio.addEventListener("loadedmetadata", resolve, { once: true }));
      return audio.duration;
    });
    expect(Number.isFinite(duration)).toBe(true);
    expect(duration).toBeGreaterThan(16.5);
  });

  test("another account's meeting page is the 404 page, and so is its audio", async () => {
    const other = await browser.newContext();
    other.on("request", (request) => requested.push(request.url()));
    const otherPage = await other.newPage();
    await signIn(otherPage, "other@firm.example", PASSWORD);
    const response = await otherPage.goto(meetingUrl);
    expect(response!.status()).toBe(404);
    expect(await otherPage.content()).not.toContain("Quarterly review");
    const audio = await otherPage.goto(`${meetingUrl}/audio`);
    expect(audio!.status()).toBe(404);
    await other.close();
  });

  test("no page loaded anything from another origin", () => {
    expect(requested.length).toBeGreaterThan(10);
    const origin = new URL(server.url).origin;
    const foreign = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("blob:") && !url.startsWith("data:"));
    expect(foreign).toEqual([]);
  });
});
