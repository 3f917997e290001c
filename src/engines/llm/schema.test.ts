import { describe, expect, test } from "bun:test";
import {
  DEFAULT_REPORT_LIMITS,
  MIN_REPORT_LIMITS,
  REPORT_JSON_SCHEMA,
  isStructuredReport,
  limitsForOutputTokens,
  minimumOutputTokens,
  reportJsonSchema,
  validateReport,
  worstCaseChars,
} from "./schema.ts";

const valid = {
  title: "Budget review",
  summary: "The team reviewed the Q3 budget.",
  key_takeaways: ["Spending is on track."],
  action_items: [
    { text: "Send the revised forecast.", owner: "Anna", due: "Friday" },
    { text: "Book the room.", owner: null, due: null },
  ],
  decisions: ["Freeze hiring until October."],
  minutes: ["Anna presented the numbers.", "Tom asked about travel costs."],
};

describe("report schema", () => {
  test("a well-formed report validates", () => {
    expect(validateReport(valid)).toEqual([]);
    expect(isStructuredReport(valid)).toBe(true);
  });

  test("every bound and type of the schema is checked", () => {
    const long = "x".repeat(DEFAULT_REPORT_LIMITS.title + 1);
    expect(validateReport({ ...valid, title: long })[0]).toContain("$.title");
    expect(validateReport({ ...valid, title: "" })[0]).toContain("at least 1");
    expect(validateReport({ ...valid, minutes: Array(DEFAULT_REPORT_LIMITS.minutes + 1).fill("m") })[0]).toContain("$.minutes");
    expect(validateReport({ ...valid, action_items: [{ text: "a", owner: 3, due: null }] })[0]).toContain("$.action_items[0].owner");
    expect(validateReport({ ...valid, action_items: [{ text: "a", due: null }] })[0]).toContain("owner: missing");
    expect(validateReport({ ...valid, extra: 1 })[0]).toContain("not allowed");
    const { summary: _, ...noSummary } = valid;
    expect(validateReport(noSummary)[0]).toContain("summary: missing");
    expect(validateReport(null)[0]).toContain("expected an object");
  });

  test("lengths count characters, not UTF-16 units", () => {
    const emoji = "😀".repeat(DEFAULT_REPORT_LIMITS.title);
    expect(validateReport({ ...valid, title: emoji })).toEqual([]);
  });

  test("every property is required and bounded, so the grammar's output is bounded", () => {
    const schema = REPORT_JSON_SCHEMA;
    expect([...schema.required].sort() as string[]).toEqual(Object.keys(schema.properties).sort());
    expect(schema.properties.title.maxLength).toBe(120);
    expect(schema.properties.minutes.maxItems).toBe(DEFAULT_REPORT_LIMITS.minutes);
    expect(schema.properties.action_items.items.properties.owner.oneOf[0].maxLength).toBe(DEFAULT_REPORT_LIMITS.owner);
  });

  test("bounds sized to an output budget fit it, shrink with it, and stay within the defaults", () => {
    let previous = Infinity;
    for (const tokens of [4000, 2048, 1024, 600, 400, 300]) {
      const limits = limitsForOutputTokens(tokens, 2)!;
      expect(limits).not.toBeNull();
      const worst = worstCaseChars(limits);
      expect(worst).toBeLessThanOrEqual(tokens * 2 * 0.9 + 1e-9);
      expect(worst).toBeLessThanOrEqual(previous);
      previous = worst;
      for (const key of Object.keys(limits) as (keyof typeof limits)[]) {
        expect(limits[key]).toBeLessThanOrEqual(DEFAULT_REPORT_LIMITS[key]);
        expect(limits[key]).toBeGreaterThanOrEqual(MIN_REPORT_LIMITS[key]);
      }
      // A report valid under the smaller bounds is valid under the contract.
      expect(validateReport(valid, reportJsonSchema(DEFAULT_REPORT_LIMITS))).toEqual([]);
    }
    expect(limitsForOutputTokens(100, 2)).toBeNull();
    expect(limitsForOutputTokens(minimumOutputTokens(2), 2)).not.toBeNull();
    expect(limitsForOutputTokens(10_000, 4)).toEqual({ ...DEFAULT_REPORT_LIMITS });
  });
});
