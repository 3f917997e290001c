// The transcript workspace (issue 25 item 4) in chromium at a desk, over a real server with the
// engine doubles: search with highlights and next/previous, speaker colours and the timeline, a
// word that seeks, the playing line followed until the person scrolls, speaker names changed while
// playing, a line's history and undo, and axe's checks. (v2-workspace-more.test.ts: a long
// transcript, video, a failed meeting, and the phone.)
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { ROOT } from "../helpers/server.ts";
import { media, newPage, pause, playFrom, scrollAtRest, SHOTS, workspaceSuite } from "./v2-workspace-kit.ts";

setDefaultTimeout(90_000);

type Json = any;

const ws = workspaceSuite(["audio"]);
describe("the transcript workspace at a desk", () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newPage(ws));
    await page.goto(`${ws.server.url}/meetings/${ws.meetings.audio}`);
  });
  afterAll(() => context.close());

  test("search: matches marked, accents and case aside, n of m, next and previous by button and Enter", async () => {
    const search = page.getByRole("searchbox", { name: "Search the transcript" });
    await search.fill("SPÓKEN");
    await page.locator(".tsearch output").filter({ hasText: /^1 of \d+$/ }).waitFor();
    const total = await page.locator("ol.transcript mark").count();
    expect(total).toBe(await page.locator("ol.transcript > li").count());
    expect(await page.locator(".tsearch output").textContent()).toBe(`1 of ${total}`);
    await page.getByRole("button", { name: "Next match" }).click();
    expect(await page.locator(".tsearch output").textContent()).toBe(`2 of ${total}`);
    await search.press("Enter");
    expect(await page.locator(".tsearch output").textContent()).toBe(`3 of ${total}`);
    await search.press("Shift+Enter");
    await page.getByRole("button", { name: "Previous match" }).click();
    expect(await page.locator(".tsearch output").textContent()).toBe(`1 of ${total}`);
    expect(await page.locator("ol.transcript mark.current").textContent()).toBe("spoken");
    await page.screenshot({ path: join(SHOTS, "ws-search.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: join(SHOTS, "ws-search-dark.png") });
    await page.emulateMedia({ colorScheme: "light" });
    await search.fill("number12");
    await page.locator(".tsearch output").filter({ hasText: "1 of 1" }).waitFor();
    await search.fill("nothing like this");
    await page.locator(".tsearch output").filter({ hasText: "No match" }).waitFor();
    expect(await page.locator("ol.transcript mark").count()).toBe(0);
    await search.fill("");
  });

  test("speaker colours: one colour per speaker on the lines, the timeline and the names form", async () => {
    const lines = await page.locator("ol.transcript > li").evaluateAll((items) =>
      items.map((li) => ({ speaker: li.querySelector(".speaker")!.getAttribute("data-spk"), colour: getComputedStyle(li.querySelector(".speaker")!).color })),
    );
    const bySpeaker = new Map<string, Set<string>>();
    for (const line of lines) bySpeaker.set(line.speaker!, (bySpeaker.get(line.speaker!) ?? new Set()).add(line.colour));
    expect(bySpeaker.size).toBe(2);
    for (const colours of bySpeaker.values()) expect(colours.size).toBe(1);
    expect(new Set([...bySpeaker.values()].map((c) => [...c][0])).size).toBe(2);
    const turns = page.locator("svg.timeline a");
    expect(await turns.count()).toBeGreaterThan(3);
    expect(await turns.first().getAttribute("aria-label")).toMatch(/^SPEAKER_00, 00:00 to 00:07$/);
    // A turn seeks the player to its first line.
    await turns.nth(2).click();
    const start = Number(await turns.nth(2).getAttribute("data-start"));
    await page.waitForFunction((s) => Math.abs(document.querySelector<HTMLMediaElement>("#player")!.currentTime - s) < 1, start);
    await pause(page);
  });

  test("a click on a word seeks the player to when it was said", async () => {
    const line = page.locator("ol.transcript > li").nth(5);
    const start = Number(await line.getAttribute("data-start"));
    const end = Number(await line.getAttribute("data-end"));
    // The previous test's seek may still be scrolling the page to the playing line: measure once
    // the line is on the screen and the page is still, or the click lands beside the word.
    await line.scrollIntoViewIfNeeded();
    await scrollAtRest(page);
    // Where "spoken" (the third of the line's four words) is on the screen.
    const box = await line.locator("p").evaluate((p) => {
      const text = p.firstChild!;
      const range = document.createRange();
      const at = text.textContent!.indexOf("spoken");
      range.setStart(text, at + 2);
      range.setEnd(text, at + 3);
      const rect = range.getBoundingClientRect();
      return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
    });
    await page.mouse.click(box.x, box.y);
    const said = start + (2 * (end - start)) / 4;
    await page.waitForFunction((s) => Math.abs(document.querySelector<HTMLMediaElement>("#player")!.currentTime - s) < 0.5, said);
    await pause(page);
  });

  test("the playing line is followed, following stops when the person scrolls, and the button brings it back", async () => {
    await page.evaluate(() => scrollTo(0, 0));
    await playFrom(page, 0, 4);
    const inView = () =>
      page.evaluate(() => {
        const line = document.querySelector("ol.transcript > li[aria-current=true]");
        if (!line) return null;
        const rect = line.getBoundingClientRect();
        return { index: Number(line.getAttribute("data-index")), visible: rect.bottom > 0 && rect.top < innerHeight };
      });
    // The page scrolls by itself to lines lower than the first screen.
    await page.waitForFunction(() => Number(document.querySelector("ol.transcript > li[aria-current=true]")?.getAttribute("data-index")) >= 8, null, { timeout: 30_000 });
    expect((await inView())!.visible).toBe(true);
    expect(await page.evaluate(() => scrollY)).toBeGreaterThan(0);
    // The person scrolls up: the page no longer moves, the button shows.
    await page.mouse.move(400, 400);
    await page.mouse.wheel(0, -5000);
    await page.getByRole("button", { name: "Back to the playing line" }).waitFor();
    // The wheel's own scrolling is animated: once it has come to rest, the page stays put.
    let scrolled = -1;
    for (let now = await page.evaluate(() => scrollY); now !== scrolled; now = await page.evaluate(() => scrollY)) {
      scrolled = now;
      await Bun.sleep(300);
    }
    const before = (await inView())!.index;
    await page.waitForFunction((i) => Number(document.querySelector("ol.transcript > li[aria-current=true]")?.getAttribute("data-index")) >= i + 2, before, { timeout: 20_000 });
    // The playing line moved on; the page stayed where the person put it.
    expect(await page.evaluate(() => scrollY)).toBe(scrolled);
    await page.getByRole("button", { name: "Back to the playing line" }).click();
    await page.waitForFunction(() => {
      const line = document.querySelector("ol.transcript > li[aria-current=true]");
      const rect = line?.getBoundingClientRect();
      return rect && rect.bottom > 0 && rect.top < innerHeight;
    });
    expect(await page.getByRole("button", { name: "Back to the playing line" }).isHidden()).toBe(true);
    await pause(page);
  });

  test("a speaker renamed while playing: no reload, playback goes on, every name on the page changes", async () => {
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await playFrom(page, 0);
    await page.getByRole("textbox", { name: "SPEAKER_00" }).fill("Dr Amélie Roux");
    await page.getByRole("button", { name: "Save the names" }).click();
    await page.locator("form#speaker-names output").filter({ hasText: "Speaker names saved." }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    expect((await media(page)).paused).toBe(false);
    const names = await page.locator('.speaker[data-spk="SPEAKER_00"]').allTextContents();
    expect(names.length).toBeGreaterThan(2);
    expect(new Set(names)).toEqual(new Set(["Dr Amélie Roux"]));
    expect(await page.locator('svg.timeline a[data-spk="SPEAKER_00"]').first().getAttribute("aria-label")).toBe("Dr Amélie Roux, 00:00 to 00:07");
    await pause(page);
    const participants = (await (await ws.server.api(`/api/v1/meetings/${ws.meetings.audio}`, { key: ws.key })).json()) as Json;
    expect(participants.participants.map((p: Json) => p.name)).toContain("Dr Amélie Roux");
    const transcript = (await (await ws.server.api(`/api/v1/meetings/${ws.meetings.audio}/transcript`, { key: ws.key })).json()) as Json;
    expect(transcript.segments[0].speaker_name).toBe("Dr Amélie Roux");
  });

  test("a corrected line shows its history, and undo puts its words back (the API agrees)", async () => {
    const original = ((await (await ws.server.api(`/api/v1/meetings/${ws.meetings.audio}/transcript`, { key: ws.key })).json()) as Json).segments[2].text;
    const line = page.locator("#seg-2");
    await line.getByRole("link", { name: /Correct/ }).click();
    await line.locator("textarea").fill("segment number two, heard right");
    await line.getByRole("button", { name: "Save the words" }).click();
    await line.locator("p").filter({ hasText: "heard right" }).waitFor();
    await line.locator("textarea").waitFor({ state: "detached" });
    await line.getByRole("link", { name: /Correct/ }).click();
    await line.locator("textarea").fill("segment number two, heard right at last");
    await line.getByRole("button", { name: "Save the words" }).click();
    await line.locator("p").filter({ hasText: "at last" }).waitFor();
    await page.reload();
    await line.getByText("History (2)").click();
    expect(await line.locator("details.history li").allTextContents()).toEqual([
      expect.stringContaining("Was: “segment number two, heard right”"),
      expect.stringContaining(`Was: “${original}”`),
    ]);
    await line.getByRole("button", { name: "Undo the last correction" }).click();
    await page.waitForURL(/notice=undone#seg-2$/);
    expect(await page.getByText("The last correction of the line was undone.").count()).toBe(1);
    expect(await line.locator("p").first().textContent()).toBe("segment number two, heard right");
    let api = (await (await ws.server.api(`/api/v1/meetings/${ws.meetings.audio}/transcript`, { key: ws.key })).json()) as Json;
    expect(api.segments[2].text).toBe("segment number two, heard right");
    await line.getByText("History (1)").click();
    await line.getByRole("button", { name: "Undo the last correction" }).click();
    await page.waitForURL(/notice=undone#seg-2$/);
    api = (await (await ws.server.api(`/api/v1/meetings/${ws.meetings.audio}/transcript`, { key: ws.key })).json()) as Json;
    expect(api.segments[2].text).toBe(original);
    expect(await line.locator("details.history").count()).toBe(0);
    // The line reads as first transcribed again: its words seek once more.
    expect(await line.locator("p[data-w]").count()).toBe(1);
    const history = (await (await ws.server.api(`/api/v1/meetings/${ws.meetings.audio}/transcript/corrections`, { key: ws.key })).json()) as Json;
    expect(JSON.stringify(history)).not.toContain("at last");
  });

  test("the workspace's parts pass axe's WCAG A and AA checks, in both themes", async () => {
    await page.goto(`${ws.server.url}/meetings/${ws.meetings.audio}`);
    await page.evaluate(readFileSync(join(ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8"));
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      const found = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe;
        // The primary buttons' dark-theme colours are the issue's other item (not this slice's): the names form's button is left out.
        const context = { include: [["section.player"], [".tsearch"], ["ol.transcript"], ["#speaker-names"]], exclude: [["#speaker-names > button"]] };
        const result = await axe.run(context, { runOnly: ["wcag2a", "wcag2aa"] });
        return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
      });
      expect(found).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: "light" });
  });

});

