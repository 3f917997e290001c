import { describe, expect, test } from "bun:test";
import { ENTITY_KINDS } from "../redaction/types.ts";
import { casePatternProblem, NO_DEFAULTS, redactPiiInput, renderRedaction, resolveRedaction } from "./redaction.ts";

describe("resolveRedaction", () => {
  const defaults = { enabled: true, entities: ["email" as const], audio: true, caseNumberPattern: "DOS-\\d{5}" };

  test("a meeting that does not say gets the account's default when it is on, none when off", () => {
    expect(resolveRedaction(undefined, defaults)).toEqual({ entities: ["email"], audio: true, caseNumberPattern: "DOS-\\d{5}" });
    expect(resolveRedaction(undefined, NO_DEFAULTS)).toBeNull();
  });

  test("true is every kind, text only; false is none whatever the default; an object keeps its kinds and audio", () => {
    expect(resolveRedaction(true, defaults)).toEqual({ entities: [...ENTITY_KINDS], audio: false, caseNumberPattern: "DOS-\\d{5}" });
    expect(resolveRedaction(false, defaults)).toBeNull();
    expect(resolveRedaction({ audio: true }, NO_DEFAULTS)).toEqual({ entities: [...ENTITY_KINDS], audio: true, caseNumberPattern: null });
    expect(resolveRedaction({ entities: ["phone"], audio: false }, defaults)!.entities).toEqual(["phone"]);
  });
});

describe("redact_pii", () => {
  test("names every unknown kind, and keeps known ones in the library's order without repeats", () => {
    const refused = redactPiiInput.safeParse({ entities: ["iban", "shoe_size", "iban", "eye_colour"] });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]!.message).toStartWith("Unknown entity kinds: shoe_size, eye_colour.");
    expect(redactPiiInput.parse({ entities: ["iban", "email", "iban"] })).toEqual({ entities: ["email", "iban"], audio: false });
    expect(redactPiiInput.safeParse({ entities: [] }).success).toBe(false);
    expect(redactPiiInput.safeParse({ audio: true, extra: 1 }).success).toBe(false);
  });
});

describe("casePatternProblem", () => {
  test("accepts a plain pattern, refuses what does not compile, matches nothing, or can backtrack without end", () => {
    expect(casePatternProblem("CASE-\\d{4}-\\d{3}")).toBeNull();
    expect(casePatternProblem("[A-Z]{2}/\\d{2,6}")).toBeNull();
    expect(casePatternProblem("(")).toBe("Not a valid regular expression.");
    expect(casePatternProblem("\\d*")).toBe("The pattern matches an empty string.");
    expect(casePatternProblem("(\\d+)+X")).toContain("repeated group");
    expect(casePatternProblem("(a)\\1")).toContain("Back-references");
    expect(casePatternProblem("x".repeat(121))).toBe("At most 120 characters.");
  });
});

test("the meeting's redaction field: null when not asked, pending until applied, then what was replaced", () => {
  const asked = { entities: ["email" as const, "phone" as const], audio: true, caseNumberPattern: null };
  expect(renderRedaction(null, null)).toBeNull();
  expect(renderRedaction(asked, null)).toEqual({ applied: false, requested: ["email", "phone"], entities: {}, audio: true });
  // The recording of a meeting without one (a text meeting) was not silenced, whatever was asked.
  expect(renderRedaction(asked, { entities: { phone: 2 }, audio: false })).toEqual({ applied: true, requested: ["email", "phone"], entities: { phone: 2 }, audio: false });
});
