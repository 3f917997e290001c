#!/usr/bin/env bun
/**
 * The README's screenshots of the web app (docs/images/web-*.png), taken in Debian's chromium
 * against a real server with the engine doubles (the pages are what is shown, not the engines):
 * the meetings list, the meeting page's transcript workspace, recording with the live transcript,
 * a meeting shared with a colleague, and the meeting page on a phone.
 *
 *   bun scripts/screenshots.ts [--out docs/images]
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, devices, type Browser, type Page } from "playwright-core";
import { createUserWithKey, ROOT, settledMeeting, startServer } from "../test/helpers/server.ts";

const argv = process.argv.slice(2);
const OUT = argv.includes("--out") ? argv[argv.indexOf("--out") + 1]! : join(ROOT, "docs", "images");
const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-en-3spk.wav");
const PASSWORD = "correct horse battery";
const OWNER = "ana@firm.example";
const COLLEAGUE = "ben@firm.example";

mkdirSync(OUT, { recursive: true });
const server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
let browser: Browser | undefined;
try {
  const key = await createUserWithKey(server, OWNER);
  for (const [email, made] of [[OWNER, await server.admin("user", "password", "--email", OWNER, "--password", PASSWORD)], [COLLEAGUE, await server.admin("user", "create", "--email", COLLEAGUE, "--plan", "pro", "--password", PASSWORD)]] as const) {
    if (made.code !== 0) throw new Error(`${email}: ${made.stderr}`);
  }
  const titles = ["Incident review – Ward 4", "Budget committee, Q4", "Client intake: Okafor v. Hale"];
  const ids: string[] = [];
  for (const [i, title] of titles.entries()) {
    const form = new FormData();
    form.append("file", Bun.file(FIXTURE), "meeting.wav");
    form.append("title", title);
    form.append("tags", i === 0 ? "clinical" : "finance");
    const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as { id: string };
    ids.push(created.id);
  }
  for (const id of ids) await settledMeeting(server, key, id, 120_000);

  const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!executablePath) throw new Error("chromium is not installed: run npm run setup");
  browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--autoplay-policy=no-user-gesture-required", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", `--use-file-for-fake-audio-capture=${FIXTURE}`],
  });
  const signedIn = async (email: string, phone = false): Promise<Page> => {
    const context = await browser!.newContext(phone ? { ...devices["Pixel 7"], locale: "en-GB" } : { locale: "en-GB", viewport: { width: 1280, height: 860 } });
    await context.grantPermissions(["microphone"]);
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/meetings/);
    return page;
  };

  const owner = await signedIn(OWNER);
  await owner.goto(`${server.url}/meetings?q=budget`);
  await owner.screenshot({ path: join(OUT, "web-list.png") });
  console.log("web-list.png");

  await owner.goto(`${server.url}/meetings/${ids[0]}`);
  const panel = owner.locator("section#share");
  await panel.getByLabel("Colleague’s email").fill(COLLEAGUE);
  await panel.getByLabel("Read, download and correct the transcript").check();
  await panel.getByRole("button", { name: "Share" }).click();
  await owner.waitForLoadState("load");
  await owner.locator("#tsearch").fill("number1");
  await owner.locator("ol.transcript mark").first().waitFor();
  await owner.evaluate(() => window.scrollTo(0, 0));
  await owner.screenshot({ path: join(OUT, "web-meeting.png") });
  console.log("web-meeting.png");

  await owner.goto(`${server.url}/record`);
  await owner.getByLabel("Title").fill("Ward round, Thursday");
  await owner.getByRole("button", { name: "Start recording" }).click();
  await owner.locator("section#live-transcript .live-lines p").first().waitFor({ timeout: 60_000 });
  await owner.screenshot({ path: join(OUT, "web-record.png"), fullPage: true });
  console.log("web-record.png");

  const colleague = await signedIn(COLLEAGUE);
  await colleague.goto(`${server.url}/shared`);
  await colleague.getByRole("link", { name: titles[0]! }).click();
  await colleague.waitForLoadState("load");
  await colleague.screenshot({ path: join(OUT, "web-shared.png") });
  console.log("web-shared.png");

  const phone = await signedIn(OWNER, true);
  await phone.goto(`${server.url}/meetings/${ids[0]}`);
  await phone.locator("ol.transcript li").nth(6).scrollIntoViewIfNeeded();
  await phone.screenshot({ path: join(OUT, "web-phone.png") });
  console.log("web-phone.png");
} finally {
  await browser?.close();
  await server.stop();
}
