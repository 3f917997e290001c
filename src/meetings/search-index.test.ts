import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors/api-error.ts";
import { ftsQuery, MAX_SEARCH_TERMS } from "./search-index.ts";

describe("ftsQuery", () => {
  test("words are quoted prefixes, all required", () => {
    expect(ftsQuery('budget "review')).toBe('"budget"* AND "review"*');
  });

  test("a one-letter word is matched whole, never as a prefix", () => {
    expect(ftsQuery("a")).toBe('"a"');
    expect(ftsQuery("plan b")).toBe('"plan"* AND "b"');
    expect(ftsQuery("é")).toBe('"é"');
  });

  test("no words means no query", () => {
    expect(ftsQuery("*** --")).toBeNull();
  });

  test(`more than ${MAX_SEARCH_TERMS} words is a validation error on q`, () => {
    expect(ftsQuery(Array.from({ length: MAX_SEARCH_TERMS }, (_, i) => `w${i}`).join(" "))).not.toBeNull();
    let error: unknown;
    try {
      ftsQuery(Array.from({ length: MAX_SEARCH_TERMS + 1 }, (_, i) => `w${i}`).join(" "));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("validation_error");
    expect((error as ApiError).errors?.[0]).toMatchObject({ field: "q", code: "too_many_terms" });
  });
});
