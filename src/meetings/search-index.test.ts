import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors/api-error.ts";
import { ftsQuery, indexText, MAX_SEARCH_TERMS, tsQuery } from "./search-index.ts";

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

describe("tsQuery (PostgreSQL)", () => {
  test("the same words as ftsQuery: quoted lexemes, prefixes from two characters, all required", () => {
    expect(tsQuery('budget "review')).toBe("'budget':* & 'review':*");
    expect(tsQuery("plan b")).toBe("'plan':* & 'b'");
    expect(tsQuery("é")).toBe("'é'");
    expect(tsQuery("Réunion d'équipe")).toBe("'Réunion':* & 'd' & 'équipe':*");
  });

  test("operators in the input are not operators", () => {
    expect(tsQuery("budget | !hiring & (x):* <->")).toBe("'budget':* & 'hiring':* & 'x'");
  });

  test("no words means no query; too many is the same 400 as ftsQuery's", () => {
    expect(tsQuery("*** --")).toBeNull();
    expect(() => tsQuery(Array.from({ length: MAX_SEARCH_TERMS + 1 }, (_, i) => `w${i}`).join(" "))).toThrow(ApiError);
  });
});

describe("indexText", () => {
  test("the words of every part, one space apart, cut as a query is cut", () => {
    expect(indexText("Jean's review", "jean@example.com v1.2", "")).toBe("Jean s review jean example com v1 2");
  });
});
