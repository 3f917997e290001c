// The transcript workspace's browser tests (issue 25, slice ws): a real server with the engine
// doubles, its meetings uploaded through the API, chromium at desk and phone sizes, and every URL a
// page asked for, which must all stay on the server's origin.
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, devices, type Browser, type BrowserContext, type Page } from "playwright-core";
import { createUserWithKey, ROOT, settledMeeting, startServer, type TestServer } from "../helpers/server.ts";

export const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-en-3spk.wav");
export const SHOTS = join(ROOT, "test-artifacts", "web");
const PASSWORD = "correct horse battery";
const EMAIL = "analyst@firm.example";

type Json = any;

function ffmpeg(...args: string[]) {
  const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", ...args]);
  if (made.exitCode !== 0) throw new Error(made.stderr.toString());
}

/** What a suite's tests use: the server, the user's API key, the meetings, chromium. */
export interface Workspace {
  server: TestServer;
  key: string;
  browser: Browser;
  /** The meetings asked for, by name: audio (the fixture), video (a test pattern over it), failed (a video without sound). */
  meetings: Record<"audio" | "video" | "failed", string>;
  requested: string[];
}

/** Starts the server and chromium before a file's tests, uploads the meetings it names, and checks the origins after. */
export function workspaceSuite(wanted: ("audio" | "video" | "failed")[]): Workspace {
  const ws = { meetings: {}, requested: [] } as unknown as Workspace;
  beforeAll(async () => {
    ws.server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"] });
    ws.key = await createUserWithKey(ws.server, EMAIL);
    const set = await ws.server.admin("user", "password", "--email", EMAIL, "--password", PASSWORD);
    if (set.code !== 0) throw new Error(set.stderr);
    const work = mkdtempSync(join(tmpdir(), "verbatim-ws-"));
    const files: Record<string, string> = { audio: FIXTURE, video: join(work, "meeting.webm"), failed: join(work, "no-sound.webm") };
    // A small video: a test pattern over the fixture's first 12 seconds (VP8 + Opus: chromium plays it).
    if (wanted.includes("video")) ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-i", FIXTURE, "-t", "12", "-c:v", "libvpx", "-b:v", "100k", "-c:a", "libopus", "-shortest", files.video!);
    // A video with no sound at all: processing fails with no_audio.
    if (wanted.includes("failed")) ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "2", "-c:v", "libvpx", "-b:v", "100k", files.failed!);
    const ids = await Promise.all(wanted.map((name) => upload(ws, files[name]!, name)));
    const settled = await Promise.all(ids.map((id) => settledMeeting(ws.server, ws.key, id, 60_000)));
    expect(settled.map((m: Json) => m.status)).toEqual(wanted.map((name) => (name === "failed" ? "failed" : "completed")));
    wanted.forEach((name, i) => (ws.meetings[name] = ids[i]!));
    mkdirSync(SHOTS, { recursive: true });
    const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
    if (!executablePath) throw new Error("chromium is not installed: run npm run setup (it installs Debian's chromium)");
    ws.browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--autoplay-policy=no-user-gesture-required"] });
  });
  afterAll(async () => {
    await ws.browser?.close();
    await ws.server?.stop();
    // Nothing any page asked for left the server's origin.
    expect(ws.requested.length).toBeGreaterThan(0);
    for (const url of ws.requested) expect(new URL(url).origin).toBe(ws.server.url);
  });
  return ws;
}

async function upload(ws: Workspace, path: string, title: string): Promise<string> {
  const form = new FormData();
  form.append("file", Bun.file(path), path.split("/").at(-1)!);
  form.append("title", title);
  const created = (await (await ws.server.api("/api/v1/meetings", { method: "POST", key: ws.key, body: form })).json()) as Json;
  if (!created.id) throw new Error(JSON.stringify(created));
  return created.id;
}

/** A signed-in page at desk size (1280×900) or on a phone (Pixel 7), its requests recorded. */
export async function newPage(ws: Workspace, phone = false, locale = "en-GB"): Promise<{ context: BrowserContext; page: Page }> {
  const context = await ws.browser.newContext(phone ? { ...devices["Pixel 7"], locale } : { locale, viewport: { width: 1280, height: 900 } });
  context.on("request", (request) => ws.requested.push(request.url()));
  const page = await context.newPage();
  await page.goto(`${ws.server.url}/login`);
  await page.locator('input[name="email"]').fill(EMAIL);
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.locator('form button[type="submit"]').click();
  await page.waitForURL(/\/meetings$/);
  return { context, page };
}

/** The player's state. */
export const media = (page: Page) =>
  page.evaluate(() => {
    const player = document.querySelector<HTMLMediaElement>("#player")!;
    return { time: player.currentTime, paused: player.paused, tag: player.tagName };
  });

/** Plays from `seconds`, faster than spoken (the doubles' lines are 4 s apart). */
export async function playFrom(page: Page, seconds: number, rate = 2) {
  await page.evaluate(
    async ([s, r]) => {
      const player = document.querySelector<HTMLMediaElement>("#player")!;
      player.playbackRate = r!;
      player.currentTime = s!;
      await player.play();
    },
    [seconds, rate],
  );
}

/** Waits until the page's scroll position holds still over two frames (a smooth scroll has ended). */
export async function scrollAtRest(page: Page) {
  for (let tries = 0; tries < 100; tries++) {
    const still = await page.evaluate(
      () => new Promise<boolean>((resolve) => {
        const y = scrollY;
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(scrollY === y)));
      }),
    );
    if (still) return;
  }
  throw new Error("the page kept scrolling");
}

/** Pauses the player. */
export const pause = (page: Page) => page.evaluate(() => document.querySelector<HTMLMediaElement>("#player")!.pause());
