// The palette of the web app (issue 25 item 9): every pair of its CSS variables that the pages
// put together meets WCAG 2.2 AA, in the light and the dark theme: text at least 4.5:1 on what
// it sits on (1.4.3), a control's boundary and the focus ring at least 3:1 (1.4.11).
import { describe, expect, test } from "bun:test";
import stylesheet from "./assets/app.css" with { type: "text" };

type Rgb = [number, number, number];

/** The custom properties of the first `:root { … }` block after `from` in the stylesheet. */
function palette(from: number): Record<string, string> {
  const block = /:root\s*\{([^}]*)\}/.exec(stylesheet.slice(from));
  if (!block) throw new Error("no :root block");
  const vars: Record<string, string> = {};
  for (const [, name, value] of block[1]!.matchAll(/--([\w-]+):\s*([^;]+);/g)) vars[name!] = value!.trim();
  return vars;
}

function rgb(hex: string): Rgb {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!match) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [1, 2, 3].map((i) => parseInt(match[i]!, 16)) as Rgb;
}

/** WCAG's relative luminance of an sRGB colour. */
function luminance([r, g, b]: Rgb): number {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `color-mix(in srgb, a p%, b)`, as the stylesheet tints a highlighted line or a notice. */
function mix(a: Rgb, b: Rgb, p: number): Rgb {
  return a.map((c, i) => Math.round(c * p + b[i]! * (1 - p))) as Rgb;
}

const THEMES = {
  light: palette(0),
  dark: palette(stylesheet.indexOf("prefers-color-scheme: dark")),
};

/** [foreground, background, least ratio]: what the pages draw on what. */
const TEXT = 4.5;
const UI = 3;
const PAIRS: [string, string, number][] = [
  ["fg", "bg", TEXT],
  ["muted", "bg", TEXT],
  ["accent", "bg", TEXT], // links, secondary buttons, the focus ring (needs only 3:1)
  ["error", "bg", TEXT],
  ["on-accent", "accent", TEXT], // primary buttons
  ["on-error", "error", TEXT], // danger buttons
  ["field", "bg", UI], // inputs', selects' and textareas' borders
  ["ok", "bg", UI], // the completed badge's border
];

describe("the palette", () => {
  for (const [theme, vars] of Object.entries(THEMES)) {
    test(`${theme}: text at least 4.5:1 and controls' boundaries at least 3:1`, () => {
      for (const [fg, bg, least] of PAIRS) {
        const ratio = contrast(rgb(vars[fg]!), rgb(vars[bg]!));
        expect({ pair: `--${fg} on --${bg}`, ok: ratio >= least }).toEqual({ pair: `--${fg} on --${bg}`, ok: true });
      }
      // Text on the tinted backgrounds: the playing line (15 % accent) and a notice (8 %).
      for (const p of [0.15, 0.08]) {
        const tint = mix(rgb(vars.accent!), rgb(vars.bg!), p);
        for (const fg of ["fg", "muted", "accent"]) expect(contrast(rgb(vars[fg]!), tint)).toBeGreaterThanOrEqual(TEXT);
      }
    });
  }

  test("the themes differ, and the ratio is WCAG's (black on white is 21:1)", () => {
    expect(THEMES.dark.bg).not.toBe(THEMES.light.bg);
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    // The fault: white on the dark theme's #6cb6ff is about 2.1:1.
    expect(contrast(rgb("#ffffff"), rgb("#6cb6ff"))).toBeLessThan(2.2);
  });
});
