// Accessibility at the desk (issue 25 item 9): axe-core over every page of the table
// (v2-a11y-pages.ts) in chromium at 1280×900, in the light and the dark theme, with no violation
// of impact serious or critical; the skip link, the favicon, the focus ring, and the player's
// keyboard hints where there is a keyboard. The phone half is v2-a11y-phone.test.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { axeRow, contextsFor, foreign, launch, PAGES, setUp, type Fixture, type Viewer } from "./v2-a11y-pages.ts";

setDefaultTimeout(90_000);
/** The setup starts a server and runs the admin CLI several times: minutes on a busy machine. */
const SETUP_MS = 240_000;

let fixture: Fixture;
let browser: Browser;
const requested: string[] = [];

beforeAll(async () => {
  [fixture, browser] = await Promise.all([setUp(), launch()]);
}, SETUP_MS);

afterAll(async () => {
  await browser?.close();
  await fixture?.server.stop();
});

describe("at the desk", () => {
  let contexts: Record<Viewer, BrowserContext>;
  beforeAll(async () => {
    contexts = await contextsFor(browser, fixture.server, { viewport: { width: 1280, height: 900 } }, requested);
  }, SETUP_MS);
  afterAll(async () => {
    for (const context of Object.values(contexts ?? {})) await context.close();
  });

  // One test a page, so that each says what it found.
  for (const row of PAGES) {
    test(`axe-core finds nothing serious or critical, light and dark: ${row.name}`, async () => {
      expect(await axeRow(contexts, fixture, row)).toEqual({});
    });
  }

  test("the pages' CSP refuses an inline script, axe's addScriptTag({ content }) included: the pass evaluates axe through DevTools", async () => {
    const page = await contexts["signed-out"].newPage();
    await page.goto(`${fixture.server.url}/login`, { waitUntil: "networkidle" });
    await expect(page.addScriptTag({ content: "window.inlineRan = true" })).rejects.toThrow("Content Security Policy");
    expect(await page.evaluate(() => "inlineRan" in window)).toBe(false);
    await page.close();
  });

  test("the skip link reads 'Skip to content', shows only when focused, and leads to the main content", async () => {
    const page = await contexts.owner.newPage();
    // The meeting with a long title: the old skip link (the title, 999 px to the left) showed over the logo.
    await page.goto(`${fixture.server.url}/meetings/${fixture.processing}`);
    const skip = page.locator("a.skip");
    expect(await skip.textContent()).toBe("Skip to content");
    // Unfocused it takes no room: nothing of it shows over the logo, whatever the page's title.
    const hidden = (await skip.boundingBox())!;
    expect(hidden.width * hidden.height).toBeLessThanOrEqual(1);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("skip");
    const shown = (await skip.boundingBox())!;
    expect(shown.width).toBeGreaterThan(50);
    expect(shown.x).toBeGreaterThanOrEqual(0);
    expect(shown.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press("Enter");
    expect(new URL(page.url()).hash).toBe("#main");
    // In French.
    const french = await (await fetch(`${fixture.server.url}/login`, { headers: { "accept-language": "fr-FR" } })).text();
    expect(french).toContain('<a class="skip" href="#main">Aller au contenu</a>');
    await page.close();
  });

  test("a favicon from this origin, linked from every page, cached as immutable", async () => {
    const page = await contexts["signed-out"].newPage();
    await page.goto(`${fixture.server.url}/login`);
    const href = await page.locator('link[rel="icon"]').getAttribute("href");
    expect(href).toMatch(/^\/assets\/favicon-[0-9a-z]+\.svg$/);
    const icon = await fetch(`${fixture.server.url}${href}`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(icon.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await icon.text()).toStartWith("<svg ");
    // The same link on a signed-in page and on the 404 page.
    const meetings = await contexts.owner.newPage();
    await meetings.goto(`${fixture.server.url}/meetings`);
    expect(await meetings.locator('link[rel="icon"]').getAttribute("href")).toBe(href);
    await meetings.goto(`${fixture.server.url}/meetings/x/y/z`);
    expect(await meetings.locator('link[rel="icon"]').getAttribute("href")).toBe(href);
    await page.close();
    await meetings.close();
  });

  test("the focus ring shows on every control reached with Tab (meeting page, settings)", async () => {
    const page = await contexts.owner.newPage();
    for (const path of [`/meetings/${fixture.completed}`, "/settings/developers"]) {
      await page.goto(`${fixture.server.url}${path}`);
      const seen = new Set<string>();
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press("Tab");
        const focus = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          if (!el || el === document.body) return null;
          const style = getComputedStyle(el);
          return { what: `${el.tagName.toLowerCase()}${el.className ? `.${el.className}` : ""} ${el.textContent?.trim().slice(0, 30) ?? ""}`, ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2 };
        });
        if (!focus) continue;
        seen.add(focus.what);
        expect(focus).toEqual({ what: focus.what, ring: true });
      }
      expect(seen.size).toBeGreaterThan(10);
    }
    await page.close();
  });

  test("the player's keyboard hints show where there is a keyboard", async () => {
    const page = await contexts.owner.newPage();
    await page.goto(`${fixture.server.url}/meetings/${fixture.completed}`);
    expect(await page.locator(".shortcuts").isVisible()).toBe(true);
    await page.close();
  });

  test("no page asked for anything from another host", () => {
    expect(requested.length).toBeGreaterThan(PAGES.length);
    expect(foreign(requested, fixture.server.url)).toEqual([]);
  });
});
