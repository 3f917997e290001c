// The transcript workspace (issue 25 item 4, item 3's failed meeting) in chromium: a two-hour
// transcript searched, a video meeting played as video, a failed meeting that says why (desk, and a
// phone in French), and on a phone a player that stays on screen, search, a tapped word and the
// timeline by touch.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { devices, type BrowserContext, type Page } from "playwright-core";
import { settledMeeting } from "../helpers/server.ts";
import { media, newPage, pause, playFrom, SHOTS, workspaceSuite } from "./v2-workspace-kit.ts";

setDefaultTimeout(90_000);

type Json = any;

/** A two-hour meeting's transcript as WebVTT: a cue every 4 seconds, "réunion" in every tenth. */
function longTranscript(): string {
  const time = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.000`;
  const cues = ["WEBVTT", ""];
  for (let i = 0; i < 1800; i++) cues.push(`${time(i * 4)} --> ${time(i * 4 + 3)}`, `<v Speaker ${i % 3}>Line ${i} of the long meeting${i % 10 === 0 ? ", la réunion continue" : ""}, with some more words to read.`, "");
  return cues.join("\n");
}

const ws = workspaceSuite(["audio", "video", "failed"]);

describe("the transcript workspace at a desk: long, video, failed", () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newPage(ws));
  });
  afterAll(() => context.close());

  test("a two-hour transcript: search marks every match, accents aside, and steps through them", async () => {
    const imported = new FormData();
    imported.append("title", "Two-hour board");
    imported.append("transcript", new Blob([longTranscript()]), "board.vtt");
    const longMeeting: string = ((await (await ws.server.api("/api/v1/meetings", { method: "POST", key: ws.key, body: imported })).json()) as Json).id;
    expect((await settledMeeting(ws.server, ws.key, longMeeting, 60_000)).status).toBe("completed");
    await page.goto(`${ws.server.url}/meetings/${longMeeting}`);
    expect(await page.locator("ol.transcript > li").count()).toBe(1800);
    const search = page.getByRole("searchbox", { name: "Search the transcript" });
    await search.fill("REUNION");
    await page.locator(".tsearch output").filter({ hasText: "1 of 180" }).waitFor();
    expect(await page.locator("ol.transcript mark").count()).toBe(180);
    await search.press("Shift+Enter");
    expect(await page.locator(".tsearch output").textContent()).toBe("180 of 180");
    expect(await page.locator("#seg-1790 mark.current").textContent()).toBe("réunion");
    // The last match is on screen.
    expect(await page.locator("#seg-1790").isVisible()).toBe(true);
    await search.fill("line 1799 of");
    await page.locator(".tsearch output").filter({ hasText: "1 of 1" }).waitFor();
    expect(await page.locator("ol.transcript mark").count()).toBe(1);
  });

  test("a video meeting plays as video", async () => {
    await page.goto(`${ws.server.url}/meetings/${ws.meetings.video}`);
    expect(await page.locator("audio#player").count()).toBe(0);
    await playFrom(page, 1);
    await page.waitForFunction(() => {
      const video = document.querySelector<HTMLVideoElement>("video#player")!;
      return video.videoWidth === 160 && video.currentTime > 1.5;
    });
    expect((await media(page)).tag).toBe("VIDEO");
    await pause(page);
  });

  test("a failed meeting says why in words, with no player and no documents form", async () => {
    await page.goto(`${ws.server.url}/meetings/${ws.meetings.failed}`);
    expect(await page.getByRole("alert").textContent()).toContain("The recording has no sound in it.");
    expect(await page.locator("#player").count()).toBe(0);
    expect(await page.locator(`form[action$="/documents"]`).count()).toBe(0);
  });
});

describe("the transcript workspace on a phone", () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newPage(ws, true));
    await page.goto(`${ws.server.url}/meetings/${ws.meetings.audio}`);
  });
  afterAll(() => context.close());

  test("the player stays on screen while the page scrolls, with no Alt-key hints", async () => {
    await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
    await page.waitForFunction(() => scrollY > 500);
    const box = await page.locator("#player").boundingBox();
    const height = page.viewportSize()!.height;
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(height);
    expect(await page.locator(".shortcuts").isHidden()).toBe(true);
    await page.screenshot({ path: join(SHOTS, "ws-phone.png") });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
  });

  test("search, a tapped word, and the timeline work by touch", async () => {
    await page.evaluate(() => scrollTo(0, 0));
    await page.getByRole("searchbox", { name: "Search the transcript" }).fill("number3");
    await page.locator(".tsearch output").filter({ hasText: "1 of 1" }).waitFor();
    const line = page.locator("#seg-3");
    const start = Number(await line.getAttribute("data-start"));
    const box = await line.locator("p").evaluate((p) => {
      const range = document.createRange();
      const mark = p.querySelector("mark")!;
      range.selectNodeContents(mark.firstChild!);
      const rect = range.getBoundingClientRect();
      return { x: rect.x + 4, y: rect.y + rect.height / 2 };
    });
    await page.touchscreen.tap(box.x, box.y);
    const said = start + (3.5 / 4) * 1;
    await page.waitForFunction((s) => Math.abs(document.querySelector<HTMLMediaElement>("#player")!.currentTime - s) < 0.5, said);
    await pause(page);
    await page.locator("svg.timeline a").nth(1).tap();
    const turn = Number(await page.locator("svg.timeline a").nth(1).getAttribute("data-start"));
    await page.waitForFunction((s) => Math.abs(document.querySelector<HTMLMediaElement>("#player")!.currentTime - s) < 1, turn);
  });

  test("a failed meeting on a phone, in French", async () => {
    // The same session in a French browser (no language saved: the browser's is used).
    const french = await ws.browser.newContext({ ...devices["Pixel 7"], locale: "fr-FR" });
    french.on("request", (request) => ws.requested.push(request.url()));
    await french.addCookies(await context.cookies());
    const frPage = await french.newPage();
    await frPage.goto(`${ws.server.url}/meetings/${ws.meetings.failed}`);
    expect(await frPage.getByRole("alert").textContent()).toContain("Ce fichier ne contient aucun son");
    expect(await frPage.locator("#player").count()).toBe(0);
    await french.close();
  });
});
