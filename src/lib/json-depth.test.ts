import { describe, expect, test } from "bun:test";
import { jsonDepthExceeds } from "./json-depth.ts";

describe("jsonDepthExceeds", () => {
  test("counts arrays and objects together", () => {
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
  });

  test("brackets inside strings, escaped quotes included, do not count", () => {
    expect(jsonDepthExceeds('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(jsonDepthExceeds('{"a":"\\"[[[[","b":"x"}', 1)).toBe(false);
    expect(jsonDepthExceeds('["\\\\",[[1]]]', 2)).toBe(true);
  });

  test("60,000 levels are found without recursion", () => {
    const deep = "[".repeat(60_000) + "]".repeat(60_000);
    expect(jsonDepthExceeds(deep, 32)).toBe(true);
    expect(jsonDepthExceeds("[".repeat(32) + "]".repeat(32), 32)).toBe(false);
  });
});
