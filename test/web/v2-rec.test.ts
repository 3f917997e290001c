// Issue 25, slice rec, in chromium at desk (1280×900) and phone (Pixel 7) sizes: nothing recorded
// is lost by a click (leaving asks, pause/resume, microphone picker, REC indicator, Wake Lock, the
// unfinished recording offered again) and uploads explain themselves (a PDF refused in the browser
// and by the server, progress by bytes, a cut or a refusal said in words).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, devices, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { expectProblem, ROOT, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-en-3spk.wav");
const SHOTS = join(ROOT, "test-artifacts", "web");
const PASSWORD = "correct horse battery";
const EMAIL = "recorder@firm.example";
const DESK: BrowserContextOptions = { locale: "en-GB", viewport: { width: 1280, height: 900 } };
const PHONE: BrowserContextOptions = { ...devices["Pixel 7"], locale: "en-GB" };
// A small PDF: what people upload by mistake.
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".repeat(40));

const AXE = readFileSync(join(ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8");

/** axe-core's serious and critical findings on the page as it is now (evaluated through the debugger: the page's CSP does not apply). */
async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  });
  return found.filter((violation) => violation.impact === "serious" || violation.impact === "critical").map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

let server: TestServer;
let browser: Browser;
let apiKey = "";
/** Every URL any page asked for: none may leave the server's origin. */
const requested: string[] = [];
const contexts: BrowserContext[] = [];

async function openContext(options: BrowserContextOptions): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.grantPermissions(["microphone"]);
  context.on("request", (request) => requested.push(request.url()));
  contexts.push(context);
  return context;
}

async function signedIn(options: BrowserContextOptions): Promise<Page> {
  const page = await (await openContext(options)).newPage();
  await page.goto(`${server.url}/login`);
  // By name: the labels are in the browser's language.
  await page.locator("input[name=email]").fill(EMAIL);
  await page.locator("input[name=password]").fill(PASSWORD);
  await page.locator("main button[type=submit]").click();
  await page.waitForURL(/\/meetings$/);
  return page;
}

const elapsed = (page: Page) => page.locator("[data-elapsed]").textContent();
const reached = (page: Page, clock: string) =>
  page.waitForFunction((at) => (document.querySelector("[data-elapsed]")?.textContent ?? "") >= at, clock, { timeout: 30_000 });

async function meeting(id: string) {
  return (await (await server.api(`/api/v1/meetings/${id}`, { key: apiKey })).json()) as { status: string; duration_seconds: number; source: string };
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"],
  });
  const made = await server.admin("user", "create", "--email", EMAIL, "--plan", "pro", "--password", PASSWORD);
  if (made.code !== 0) throw new Error(made.stderr);
  const key = await server.admin("key", "create", "--email", EMAIL, "--name", "test", "--scopes", "all", "--json");
  if (key.code !== 0) throw new Error(key.stderr);
  apiKey = (JSON.parse(key.stdout) as { key: string }).key;
  const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!executablePath) throw new Error("chromium is not installed: run npm run setup (it installs Debian's chromium)");
  browser = await chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
      `--use-file-for-fake-audio-capture=${FIXTURE}`,
    ],
  });
});

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await server?.stop();
});

describe("recording: nothing is lost by a click", () => {
  test("desk: microphone picker, REC with elapsed time, pause and resume, leaving asks, the screen kept awake; the meeting has the audio", async () => {
    const page = await signedIn(DESK);
    // Headless chromium's Wake Lock may refuse: a stand-in tells the test what the page asks of it.
    const wake: string[] = [];
    await page.exposeFunction("wakeSeen", (call: string) => wake.push(call));
    await page.addInitScript(() => {
      const seen = (call: string) => (window as unknown as { wakeSeen(call: string): void }).wakeSeen(call);
      Object.defineProperty(navigator, "wakeLock", {
        configurable: true,
        value: { request: async () => (seen("request"), { release: async () => seen("release") }) },
      });
    });
    await page.goto(`${server.url}/record`);
    // Nothing records yet: leaving does not ask.
    let dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.type());
      void dialog.dismiss();
    });
    await page.getByLabel("Title").fill("Paused and resumed");
    expect(await page.locator("[data-rec]").isHidden()).toBe(true);
    await page.getByRole("button", { name: "Start recording" }).click();
    await reached(page, "00:03");
    // The picker lists chromium's fake microphone once permission was given.
    const picker = page.getByLabel("Microphone");
    await picker.waitFor();
    const options = await picker.locator("option").allTextContents();
    expect(options.length).toBeGreaterThanOrEqual(2);
    expect(options.slice(1).join(" ")).toMatch(/fake|default|audio/i);
    expect(await picker.isDisabled()).toBe(true);
    // The REC indicator: visible, a status region, mm:ss.
    const indicator = page.locator("[data-rec]");
    expect(await indicator.isVisible()).toBe(true);
    expect(await indicator.getAttribute("role")).toBe("status");
    expect(await indicator.locator("[data-rec-label]").textContent()).toBe("REC");
    expect(await elapsed(page)).toMatch(/^\d\d:\d\d$/);
    expect(wake).toEqual(["request"]);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "v2-rec-recording.png") });

    // Leaving asks: a nav link gets a confirm (dismissed: the page stays), closing gets beforeunload.
    await page.getByRole("link", { name: "Meetings", exact: true }).click();
    expect(dialogs).toEqual(["confirm"]);
    expect(new URL(page.url()).pathname).toBe("/record");
    await page.close({ runBeforeUnload: true });
    await page.waitForTimeout(500);
    expect(dialogs).toEqual(["confirm", "beforeunload"]);
    expect(page.isClosed()).toBe(false);

    // Pause: the time stops, the indicator says so; Resume: it runs again.
    await page.getByRole("button", { name: "Pause" }).click();
    expect(await indicator.locator("[data-rec-label]").textContent()).toBe("Paused");
    expect(await indicator.getAttribute("class")).toContain("paused");
    const pausedAt = await elapsed(page);
    await page.waitForTimeout(2_000);
    expect(await elapsed(page)).toBe(pausedAt);
    await page.getByRole("button", { name: "Resume" }).click();
    await page.waitForFunction((at) => document.querySelector("[data-elapsed]")?.textContent !== at, pausedAt, { timeout: 10_000 });
    await reached(page, "00:07");
    const shown = await elapsed(page);

    dialogs = [];
    await page.getByRole("button", { name: "Stop and process" }).click();
    await page.waitForURL(/\/meetings\/[0-9a-f-]{36}$/, { timeout: 30_000 });
    // Stopping let go of the screen, and the way to the meeting page asked nothing.
    expect(dialogs).toEqual([]);
    expect(wake).toEqual(["request", "release"]);
    const id = page.url().split("/").pop()!;
    await page.locator("ol.transcript li").first().waitFor({ timeout: 60_000 });
    const done = await meeting(id);
    expect(done).toMatchObject({ status: "completed", source: "live_recording" });
    // The recording holds the recorded time (the pause left out), not the time the page was open.
    const [minutes, seconds] = shown!.split(":").map(Number);
    expect(done.duration_seconds).toBeGreaterThan(3);
    expect(done.duration_seconds).toBeLessThanOrEqual(minutes! * 60 + seconds! + 3);
    await page.close();
  });

  test("phone: an interrupted recording is offered again on /record: its parts sent, then processed; another one discarded after a confirmation", async () => {
    const context = await openContext(PHONE);
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/meetings$/);

    const interrupted = async (title: string) => {
      const recorder = await context.newPage();
      await recorder.goto(`${server.url}/record`);
      await recorder.getByLabel("Title").fill(title);
      await recorder.getByRole("button", { name: "Start recording" }).click();
      await reached(recorder, "00:06");
      // On a phone the REC indicator stays in view, and nothing is wider than the screen.
      expect(await recorder.locator("[data-rec]").isVisible()).toBe(true);
      await recorder.screenshot({ path: join(SHOTS, "v2-rec-recording-phone.png") });
      expect(await recorder.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(412);
      // The tab is closed without Stop (the battery died): what was recorded is in IndexedDB.
      await recorder.close();
    };
    await interrupted("Ward round");
    await page.goto(`${server.url}/record`);
    const unfinished = page.getByRole("region", { name: "Unfinished recordings" });
    await unfinished.waitFor();
    expect(await unfinished.textContent()).toContain("Ward round");
    // The island sends the parts the closed tab kept; a reload then offers to process them.
    await page.locator("[data-resumed]").waitFor({ state: "visible", timeout: 30_000 });
    await page.reload();
    const item = page.locator("li", { hasText: "Ward round" });
    expect(await item.textContent()).toMatch(/[\d.]+ MB received/);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "v2-rec-unfinished-phone.png"), fullPage: true });
    await item.getByRole("button", { name: "Process what was recorded" }).click();
    await page.waitForURL(/\/meetings\/[0-9a-f-]{36}$/);
    const id = page.url().split("/").pop()!;
    await page.locator("ol.transcript li").first().waitFor({ timeout: 60_000 });
    expect((await meeting(id)).status).toBe("completed");

    // Discarding asks first: the box must be ticked (the browser holds the form until it is).
    await interrupted("Not worth keeping");
    await page.goto(`${server.url}/record`);
    const other = page.locator("li", { hasText: "Not worth keeping" });
    const draftId = await other.getAttribute("data-draft");
    await other.getByRole("button", { name: "Discard" }).click();
    expect(new URL(page.url()).pathname).toBe("/record");
    expect(await other.getByRole("checkbox").evaluate((box) => (box as HTMLInputElement).validity.valueMissing)).toBe(true);
    // Posted by hand without the box: nothing is deleted, the page says why (a redirect, so a reload sends nothing).
    const unticked = await page.evaluate(
      async ([id, csrf]) => {
        const response = await fetch(`/record/drafts/${id}/discard`, { method: "POST", body: new URLSearchParams({ _csrf: csrf! }), redirect: "manual" });
        return response.type === "opaqueredirect" ? 303 : response.status;
      },
      [draftId, (await page.locator("input[name=_csrf]").first().getAttribute("value"))!],
    );
    expect(unticked).toBe(303);
    expect((await meeting(draftId!)).status).toBe("draft");
    // The page after it (the redirect's GET) says so at that recording's box.
    await page.goto(`${server.url}/record`);
    const ticked = page.locator("li", { hasText: "Not worth keeping" });
    expect(await ticked.locator(".field-error").textContent()).toContain("Tick “Yes, delete this recording”");
    expect(await ticked.getByRole("checkbox").getAttribute("aria-invalid")).toBe("true");
    await ticked.getByRole("checkbox", { name: "Yes, delete this recording" }).check();
    await ticked.getByRole("button", { name: "Discard" }).click();
    await page.waitForURL(/\/record\?notice=discarded$/);
    expect(await page.getByRole("status").first().textContent()).toBe("The unfinished recording was deleted.");
    expect(await page.locator("li", { hasText: "Not worth keeping" }).count()).toBe(0);
    expect((await server.api(`/api/v1/meetings/${draftId}`, { key: apiKey })).status).toBe(404);
    await page.close();
  });
});

describe("uploads explain themselves", () => {
  for (const [size, options] of [
    ["desk", DESK],
    ["phone", PHONE],
  ] as const) {
    test(`${size}: a PDF is refused at its field in the browser, and nothing is sent`, async () => {
      const page = await signedIn(options);
      await page.goto(`${server.url}/meetings/new`);
      const sent: string[] = [];
      page.on("request", (request) => request.method() !== "GET" && sent.push(request.url()));
      const input = page.getByLabel("Recording (audio or video, up to 2 GB: 2,000,000,000 bytes)");
      await input.setInputFiles({ name: "minutes.pdf", mimeType: "application/pdf", buffer: PDF });
      const error = page.locator("#error-file");
      await error.waitFor({ state: "visible" });
      expect(await error.textContent()).toContain("This file is not an audio or video recording");
      expect(await input.getAttribute("aria-invalid")).toBe("true");
      expect(await accessibilityProblems(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `v2-rec-pdf-refused-${size}.png`) });
      await page.getByRole("button", { name: "Upload" }).click();
      await page.waitForTimeout(500);
      expect(sent).toEqual([]);
      expect(await page.locator("form#upload progress").isHidden()).toBe(true);
      // A recording chosen instead clears the message.
      await input.setInputFiles(FIXTURE);
      expect(await error.isHidden()).toBe(true);
      expect(await input.getAttribute("aria-invalid")).toBeNull();
      await page.close();
    });
  }

  test("in French: the refusal at the field, and the recorder's new controls", async () => {
    const page = await signedIn({ ...PHONE, locale: "fr-FR" });
    await page.goto(`${server.url}/meetings/new`);
    await page.locator("input[name=file]").setInputFiles({ name: "compte-rendu.pdf", mimeType: "application/pdf", buffer: PDF });
    expect(await page.locator("#error-file").textContent()).toStartWith("Ce fichier n'est pas un enregistrement audio ou vidéo");
    await page.goto(`${server.url}/record`);
    expect(await page.getByRole("button", { name: "Mettre en pause" }).isDisabled()).toBe(true);
    expect(await page.locator("form#recorder").getAttribute("data-leave")).toStartWith("Un enregistrement est en cours. Quitter la page ?");
    await page.close();
  });

  test("the server refuses a PDF too: the API with a problem, the form without script back at its field, the uploader with the server's reason", async () => {
    // The API: 415 unsupported_media, a problem that says what was wrong.
    const body = new FormData();
    body.append("file", new Blob([PDF], { type: "application/pdf" }), "minutes.pdf");
    const refused = await server.api("/api/v1/meetings", { key: apiKey, method: "POST", body });
    const problem = (await refused.clone().json()) as { detail: string };
    await expectProblem(refused, 415, "unsupported_media");
    expect(problem.detail).toContain("not an audio or video recording");

    // The form, without JavaScript: a redirect back to the form, the reason at the file field.
    const noScript = await openContext({ ...DESK, javaScriptEnabled: false });
    const page = await noScript.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.goto(`${server.url}/meetings/new`);
    await page.getByLabel("Recording (audio or video, up to 2 GB: 2,000,000,000 bytes)").setInputFiles({ name: "minutes.pdf", mimeType: "application/pdf", buffer: PDF });
    const [post] = await Promise.all([page.waitForResponse((response) => response.request().method() === "POST"), page.getByRole("button", { name: "Upload" }).click()]);
    expect(post.status()).toBe(303);
    await page.waitForURL(/\/meetings\/new$/);
    expect(await page.locator("#error-file").textContent()).toContain("This file is not an audio or video recording");
    expect(await page.locator("input[name=file]").getAttribute("aria-invalid")).toBe("true");
    // Once: a reload shows the plain form.
    await page.reload();
    expect(await page.locator("#error-file").isHidden()).toBe(true);

    // The uploader: a PDF named .mp3 passes the browser's look at its name, and the server's reason is shown.
    const scripted = await signedIn(DESK);
    await scripted.goto(`${server.url}/meetings/new`);
    const input = scripted.getByLabel("Recording (audio or video, up to 2 GB: 2,000,000,000 bytes)");
    await input.setInputFiles({ name: "minutes.mp3", mimeType: "audio/mpeg", buffer: PDF });
    await scripted.getByRole("button", { name: "Upload" }).click();
    const status = scripted.locator("[data-upload-status]");
    await scripted.waitForFunction(() => document.querySelector("[data-upload-status]")?.classList.contains("error"));
    expect(await status.textContent()).toContain("The server refused the file: This file is not an audio or video recording");
    expect(await scripted.locator("#error-file").isVisible()).toBe(true);
    expect(await scripted.getByRole("button", { name: "Upload" }).isEnabled()).toBe(true);
    await scripted.close();
  });

  test("progress moves by bytes (several values within one part), shown in percent and MB; a cut says it is retrying", async () => {
    const page = await signedIn(DESK);
    await page.goto(`${server.url}/meetings/new`);
    // A 4 MB recording (one part) over a connection throttled to about 1 MB/s upstream.
    const wav = join(mkdtempSync(join(tmpdir(), "verbatim-v2-rec-")), "four-mb.wav");
    const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-stream_loop", "3", "-i", FIXTURE, "-t", "125", "-ac", "1", "-ar", "16000", wav]);
    if (made.exitCode !== 0) throw new Error(made.stderr.toString());
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 1_000_000 });
    // The first try of the part is cut: the status says the connection was lost and it tries again.
    let cut = 0;
    await page.route(/\/parts\/0$/, (route) => (cut++ === 0 ? route.abort("connectionreset") : route.continue()));
    // What the page shows, each time the status changes (kept here: the page goes on to the meeting).
    const seen: { value: number; now: string | null; text: string }[] = [];
    await page.exposeFunction("progressSeen", (entry: { value: number; now: string | null; text: string }) => seen.push(entry));
    await page.evaluate(() => {
      const report = (window as unknown as { progressSeen(entry: object): void }).progressSeen;
      const bar = document.querySelector("form#upload progress") as HTMLProgressElement;
      for (const shown of document.querySelectorAll("[data-upload-status], [data-upload-bytes]")) {
        new MutationObserver(() => report({ value: bar.value, now: bar.getAttribute("aria-valuenow"), text: shown.textContent ?? "" })).observe(shown, { childList: true, characterData: true, subtree: true });
      }
    });
    await page.getByLabel("Recording (audio or video, up to 2 GB: 2,000,000,000 bytes)").setInputFiles(wav);
    await page.locator("form#upload").getByLabel("Title").fill("Throttled");
    await page.getByRole("button", { name: "Upload" }).click();
    await page.waitForURL(/\/meetings\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    expect(seen.some((entry) => entry.text.startsWith("Connection lost: trying again in"))).toBe(true);
    const between = [...new Set(seen.filter((entry) => entry.value > 0 && entry.value < 100).map((entry) => entry.value))];
    expect(between.length).toBeGreaterThanOrEqual(3);
    const bytes = seen.filter((entry) => entry.text.includes(" MB of "));
    expect(bytes.length).toBeGreaterThanOrEqual(3);
    for (const entry of bytes) {
      expect(entry.now).toBe(String(entry.value));
      expect(entry.text).toMatch(/^\d+ % · [\d.]+ MB of 4\.0 MB$/);
    }
    // The live status speaks in sentences (not every byte): uploading, the cut, uploading again, then done.
    const sentences = seen.filter((entry) => !entry.text.includes(" MB of ")).map((entry) => entry.text.replace(/\d+/g, "N"));
    expect(sentences).toEqual(["Uploading… N%", "Connection lost: trying again in N s…", "Uploading… N%", "Uploaded. Opening the meeting…"]);
    await page.close();
  });
});

test("no page loaded anything from another origin", () => {
  expect(requested.length).toBeGreaterThan(10);
  const origin = new URL(server.url).origin;
  expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("blob:") && !url.startsWith("data:"))).toEqual([]);
});
