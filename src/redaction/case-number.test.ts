import { describe, expect, test } from "bun:test";
import { CasePatternError, compileCasePattern, findCaseNumbers } from "./case-number.ts";

describe("case numbers", () => {
  test("the account's pattern, whole words only, case aside; the key is the upper-cased match", () => {
    const text = "See CV-2024-001234 and cv-2023-98765, not XCV-2024-1234 nor CV-2024-12345678; RG 23/04512 is another scheme.";
    const found = findCaseNumbers(text, String.raw`CV-\d{4}-\d{4,6}`);
    expect(found.map((m) => text.slice(m.start, m.end))).toEqual(["CV-2024-001234", "cv-2023-98765"]);
    expect(found.map((m) => m.key)).toEqual(["CV-2024-001234", "CV-2023-98765"]);
    expect(findCaseNumbers(text, String.raw`RG ?\d{2}/\d{5}`).map((m) => m.key)).toEqual(["RG 23/04512"]);
  });

  test("patterns that could backtrack without end, or match anything, are refused with the reason", () => {
    const refused: [string, RegExp][] = [
      ["(a+)+b", /unbounded repetition/],
      [String.raw`\d*`, /unbounded repetition/],
      [String.raw`\d{2,}`, /unbounded repetition/],
      [String.raw`(\d{1,9}){1,9}`, /a repeated group may not hold a repetition/],
      [String.raw`(a)\1`, /back-references/],
      [String.raw`(?=abc)abc`, /look-arounds/],
      [String.raw`(?<!x)abc`, /look-arounds/],
      [String.raw`^CV\d{3}`, /anchors/],
      ["ab", /at least 3 characters/],
      [String.raw`\d{32}\d{32}\d`, /at most 64 characters/],
      [String.raw`\d{1,40}`, /up to 32/],
      [String.raw`a?b?c?d?e?f?g?hij`, /at most 6 repetitions/],
      ["(abc", /not closed/],
      ["abc)", /closing bracket/],
      ["[abc", /not closed/],
      ["", /1 to 200 characters/],
      ["x".repeat(201), /1 to 200 characters/],
      [String.raw`\p{L}{3}`, /escape/],
    ];
    for (const [source, reason] of refused) {
      let error: unknown;
      try {
        compileCasePattern(source);
      } catch (caught) {
        error = caught;
      }
      expect({ source, error: error instanceof CasePatternError }).toEqual({ source, error: true });
      expect((error as Error).message).toMatch(reason);
    }
  });

  test("everyday patterns are accepted", () => {
    for (const source of [String.raw`CV-\d{4}-\d{4,6}`, String.raw`RG ?\d{2}/\d{5}`, String.raw`[A-Z]{2}\d{6}`, String.raw`(?:DOSSIER|FILE)[ -]?\d{3,8}`, String.raw`(?<year>\d{4})/[A-Z]{3}/\d{3}`, "\\bN°\\s?\\d{5}", String.raw`N\u00B0\x20\d{5}`]) {
      expect(compileCasePattern(source)).toBeInstanceOf(RegExp);
    }
  });

  test("the scan stops at its deadline with an error rather than skip the rest", () => {
    let clock = 0;
    const now = () => (clock += 1000);
    expect(() => findCaseNumbers("x ".repeat(2000), String.raw`CV-\d{4}`, now)).toThrow(CasePatternError);
  });

  test("a 30-minute transcript is scanned within the deadline by the worst accepted pattern", () => {
    // Six overlapping repetitions of digits, then a letter that never comes: the most backtracking the subset allows.
    const source = String.raw`\d{1,8}\d{1,8}\d{1,8}\d{1,8}\d{1,8}\d{1,8}X`;
    const text = "1234567890123456 ".repeat(2000);
    const started = performance.now();
    expect(findCaseNumbers(text, source)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
