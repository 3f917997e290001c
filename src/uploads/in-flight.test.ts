import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors/api-error.ts";
import { UploadsInFlight } from "./in-flight.ts";

describe("UploadsInFlight", () => {
  test("refuses an account's upload beyond its limit, until one is released; other accounts are apart", () => {
    const uploads = new UploadsInFlight();
    const first = uploads.acquire("a", 2);
    uploads.acquire("a", 2);
    expect(() => uploads.acquire("a", 2)).toThrow(ApiError);
    expect(uploads.acquire("b", 2)).toBeFunction();
    first();
    first(); // a second release of the same place changes nothing
    expect(uploads.inProgress("a")).toBe(1);
    expect(uploads.acquire("a", 2)).toBeFunction();
    expect(() => uploads.acquire("a", 2)).toThrow(ApiError);
  });

  test("the refusal is a 429 parallel_processing_limit with Retry-After", () => {
    const uploads = new UploadsInFlight();
    uploads.acquire("a", 1);
    try {
      uploads.acquire("a", 1);
      throw new Error("not refused");
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(429);
      expect((error as ApiError).code).toBe("parallel_processing_limit");
      expect((error as ApiError).headers).toEqual({ "Retry-After": "30" });
    }
  });
});
