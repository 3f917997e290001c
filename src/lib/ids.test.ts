import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { isUuid } from "./ids.ts";

describe("isUuid", () => {
  test("a random UUID in either case; not a near miss", () => {
    const id = crypto.randomUUID();
    expect(isUuid(id)).toBe(true);
    expect(isUuid(id.toUpperCase())).toBe(true);
    for (const bad of ["", "not-a-uuid", `${id}x`, id.slice(1), id.replace(/-/g, ""), "00000000-0000-0000-0000-000000000000", "123e4567-e89b-92d3-a456-426614174000"]) {
      expect(isUuid(bad)).toBe(false);
    }
  });

  test("agrees with the API schemas' z.uuid() on what a meeting id can be", () => {
    const schema = z.uuid();
    for (const value of [crypto.randomUUID(), "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-c456-426614174000", "nope"]) {
      expect(isUuid(value)).toBe(schema.safeParse(value).success);
    }
  });
});
