import { expect, test } from "bun:test";
import { newRequestId } from "./request-id.ts";

test("request ids are prefixed, base62 and unique", () => {
  const ids = new Set(Array.from({ length: 1000 }, newRequestId));
  expect(ids.size).toBe(1000);
  for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{20}$/);
});
