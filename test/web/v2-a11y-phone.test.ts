// Accessibility on a phone (issue 25 item 9): axe-core over every page of the table
// (v2-a11y-pages.ts) in chromium as a Pixel 7 (touch, 412×839), in the light and the dark theme,
// with no violation of impact serious or critical and nothing wider than the screen; no keyboard
// hints on a touch screen; the player stays on screen while the transcript scrolls; the skip link
// stays hidden. The desk half is v2-a11y.test.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { devices, type Browser, type BrowserContext } from "playwright-core";
import { axeRow, contextsFor, foreign, launch, LONG_TITLE, PAGES, setUp, type Fixture, type Viewer } from "./v2-a11y-pages.ts";

setDefaultTimeout(90_000);
/** The setup starts a server and runs the admin CLI several times: minutes on a busy machine. */
const SETUP_MS = 240_000;

let fixture: Fixture;
let browser: Browser;
let contexts: Record<Viewer, BrowserContext>;
const requested: string[] = [];

beforeAll(async () => {
  [fixture, browser] = await Promise.all([setUp(), launch()]);
  const { defaultBrowserType: _, ...pixel } = devices["Pixel 7"]!;
  contexts = await contextsFor(browser, fixture.server, pixel, requested);
}, SETUP_MS);

afterAll(async () => {
  for (const context of Object.values(contexts ?? {})) await context.close();
  await browser?.close();
  await fixture?.server.stop();
});

describe("on a phone", () => {
  // One test a page, so that each says what it found; nothing may be wider than the screen.
  for (const row of PAGES) {
    test(`axe-core finds nothing serious or critical, light and dark: ${row.name}`, async () => {
      expect(await axeRow(contexts, fixture, row)).toEqual({});
    });
  }

  test("a touch screen shows no keyboard hints; the player stays on screen while the transcript scrolls", async () => {
    const page = await contexts.owner.newPage();
    await page.goto(`${fixture.server.url}/meetings/${fixture.completed}`);
    expect(await page.evaluate(() => matchMedia("(hover: none), (pointer: coarse)").matches)).toBe(true);
    expect(await page.locator(".shortcuts").count()).toBeGreaterThan(0);
    expect(await page.locator(".shortcuts").isVisible()).toBe(false);
    // The transcript's last line scrolled into view: the player is still on screen, usable.
    await page.locator("ol.transcript li").last().scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(200);
    const player = (await page.locator("audio#player").boundingBox())!;
    const screen = page.viewportSize()!;
    expect(player.y).toBeGreaterThanOrEqual(0);
    expect(player.y + player.height).toBeLessThanOrEqual(screen.height);
    await page.close();
  });

  test("the skip link takes no room until focused, whatever the title", async () => {
    const page = await contexts.owner.newPage();
    await page.goto(`${fixture.server.url}/meetings/${fixture.processing}`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(LONG_TITLE);
    const box = (await page.locator("a.skip").boundingBox())!;
    expect(box.width * box.height).toBeLessThanOrEqual(1);
    // The logo is where it was, with nothing drawn over it.
    const brand = (await page.locator("header .brand").boundingBox())!;
    const top = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.className, [brand.x + brand.width / 2, brand.y + brand.height / 2]);
    expect(top).toBe("brand");
    await page.close();
  });

  test("no page asked for anything from another host", () => {
    expect(requested.length).toBeGreaterThan(PAGES.length);
    expect(foreign(requested, fixture.server.url)).toEqual([]);
  });
});
