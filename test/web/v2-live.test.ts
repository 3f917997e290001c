// Issue 25, item 8: a live transcript while recording, in chromium with the fake microphone
// playing the fixture (engine doubles: the page and the plumbing are under test; the real whisper
// stand-in's delay is measured by bench/live-transcript.ts). The live text appears under the
// recorder while it runs, marked provisional; it is the owner's only; once the recording is
// finished it is gone and the full transcript stands in its place.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, devices, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ROOT, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-en-3spk.wav");
const SHOTS = join(ROOT, "test-artifacts", "web");
const PASSWORD = "correct horse battery";
const EMAIL = "live@firm.example";

let server: TestServer;
let browser: Browser;
/** Every URL any page asked for: none may leave the server's origin. */
const requested: string[] = [];

async function signIn(into: Page, email: string) {
  await into.goto(`${server.url}/login`);
  await into.getByLabel("Email").fill(email);
  await into.getByLabel("Password").fill(PASSWORD);
  await into.getByRole("button", { name: "Sign in" }).click();
  await into.waitForLoadState("load");
}

async function open(options: Parameters<Browser["newContext"]>[0]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: "en-GB", ...options });
  await context.grantPermissions(["microphone"]);
  context.on("request", (request) => requested.push(request.url()));
  const page = await context.newPage();
  await signIn(page, EMAIL);
  return { context, page };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
  for (const email of [EMAIL, "stranger@firm.example"]) {
    const made = await server.admin("user", "create", "--email", email, "--plan", "pro", "--password", PASSWORD);
    if (made.code !== 0) throw new Error(made.stderr);
  }
  const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!executablePath) throw new Error("chromium is not installed");
  browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", `--use-file-for-fake-audio-capture=${FIXTURE}`],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * Records on `page` until the live transcript shows text; answers the draft's id and the text seen.
 * The text must appear within 25 s of pressing Start (parts come every 4 s; the doubles are instant).
 */
async function recordUntilLiveText(page: Page, title: string): Promise<{ draftId: string; lines: string[] }> {
  await page.goto(`${server.url}/record`);
  const section = page.locator("section#live-transcript");
  expect(await section.isHidden()).toBe(true);
  await page.getByLabel("Title").fill(title);
  const polled = page.waitForRequest(/\/meetings\/[0-9a-f-]{36}\/live\?after=\d+$/, { timeout: 20_000 });
  await page.getByRole("button", { name: "Start recording" }).click();
  const draftId = /\/meetings\/([0-9a-f-]{36})\/live/.exec((await polled).url())![1]!;
  await section.locator(".live-lines p").first().waitFor({ timeout: 25_000 });
  expect(await section.isVisible()).toBe(true);
  // Marked provisional, read out politely.
  expect(await section.getByRole("heading", { level: 2 }).textContent()).toContain("Provisional");
  expect(await section.locator(".live-lines").getAttribute("aria-live")).toBe("polite");
  await page.screenshot({ path: join(SHOTS, `live-${page.viewportSize()!.width}.png`), fullPage: true });
  return { draftId, lines: await section.locator(".live-lines p").allTextContents() };
}

async function stopAndWaitForTranscript(page: Page) {
  await page.getByRole("button", { name: "Stop and process" }).click();
  await page.waitForURL(/\/meetings\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await page.locator("ol.transcript li").first().waitFor({ timeout: 60_000 });
}

describe("a live transcript while recording", () => {
  test("desk: provisional text appears while recording, is the owner's only, and is gone once the meeting is processed", async () => {
    const { context, page } = await open({ viewport: { width: 1280, height: 900 } });
    const { draftId, lines } = await recordUntilLiveText(page, "Live at the desk");
    // The doubles say "segment numberN spoken here" for each 4 s heard: no word twice in a row from the overlap.
    expect(lines.join(" ")).toContain("segment number0 spoken");
    const words = lines.join(" ").split(/\s+/);
    for (let i = 1; i < words.length; i++) expect(`${words[i - 1]} ${words[i]}`).not.toBe(`${words[i]} ${words[i]}`);
    const live = (await (await page.request.get(`${server.url}/meetings/${draftId}/live?after=0`)).json()) as any;
    expect(live).toMatchObject({ live: true, enabled: true, after: 0 });
    expect(live.segments.length).toBeGreaterThan(0);
    expect(existsSync(join(server.dataDir, "meetings", draftId, "live.json"))).toBe(true);
    // Later segments only, from `after` on.
    const later = (await (await page.request.get(`${server.url}/meetings/${draftId}/live?after=${live.total}`)).json()) as any;
    expect(later.segments).toEqual([]);

    // Another account: the same 404 as for a meeting that does not exist, for reading and for sending.
    const stranger = await browser.newContext();
    stranger.on("request", (request) => requested.push(request.url()));
    const strangerPage = await stranger.newPage();
    await signIn(strangerPage, "stranger@firm.example");
    const refused = await strangerPage.request.get(`${server.url}/meetings/${draftId}/live?after=0`);
    expect(refused.status()).toBe(404);
    expect(await refused.text()).not.toContain("segment");
    await stranger.close();
    // Signed out: sent to sign in, nothing shown.
    const anonymous = await browser.newContext();
    const signedOut = await anonymous.request.get(`${server.url}/meetings/${draftId}/live?after=0`, { maxRedirects: 0 });
    expect([302, 303, 401]).toContain(signedOut.status());
    await anonymous.close();

    await stopAndWaitForTranscript(page);
    // The full transcript replaced the provisional one: the file is gone and the endpoint says so.
    expect(existsSync(join(server.dataDir, "meetings", draftId, "live.json"))).toBe(false);
    expect(existsSync(join(server.dataDir, "meetings", draftId, "live-tail"))).toBe(false);
    const after = (await (await page.request.get(`${server.url}/meetings/${draftId}/live?after=0`)).json()) as any;
    expect(after).toMatchObject({ live: false, segments: [] });
    expect(await page.locator("#live-transcript").count()).toBe(0);
    // The live work was never an API job nor charged: the API lists the meeting's processing alone.
    await context.close();
  });

  test("phone: the live text shows under the recorder on a small touch screen", async () => {
    const { context, page } = await open({ ...devices["Pixel 7"] });
    const { lines } = await recordUntilLiveText(page, "Live on the phone");
    expect(lines.length).toBeGreaterThan(0);
    // Inside the screen's width: no sideways scrolling.
    const box = await page.locator("section#live-transcript").boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(page.viewportSize()!.width + 1);
    await stopAndWaitForTranscript(page);
    await context.close();
  });

  test("a recording that asked for redaction gets no live transcript (its words would sit on disk unredacted)", async () => {
    const { context, page } = await open({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/record`);
    await page.getByLabel("Title").fill("Redacted live");
    await page.locator("select[name=redact_pii]").selectOption({ index: 1 });
    const polled = page.waitForResponse(/\/live\?after=\d+$/, { timeout: 20_000 });
    await page.getByRole("button", { name: "Start recording" }).click();
    const answer = (await (await polled).json()) as any;
    expect(answer).toMatchObject({ enabled: false, segments: [] });
    await page.waitForTimeout(6000);
    expect(await page.locator("section#live-transcript").isHidden()).toBe(true);
    const draftId = /\/meetings\/([0-9a-f-]{36})\/live/.exec((await polled).url())![1]!;
    expect(existsSync(join(server.dataDir, "meetings", draftId, "live.json"))).toBe(false);
    expect(existsSync(join(server.dataDir, "meetings", draftId, "live-tail"))).toBe(false);
    await stopAndWaitForTranscript(page);
    await context.close();
  });

  test("no page loaded anything from another host", () => {
    const origin = new URL(server.url).origin;
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith("blob:") && !url.startsWith("data:"))).toEqual([]);
  });
});
