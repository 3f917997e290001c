import { describe, expect, test } from "bun:test";
import { SlidingWindowLimiter, rateLimitHeaders } from "./rate-limit.ts";

const T0 = 1_800_000_000_000; // a whole second, in ms

describe("SlidingWindowLimiter", () => {
  test("allows up to the limit, then refuses with Retry-After until the oldest second leaves", () => {
    const limiter = new SlidingWindowLimiter();
    for (let i = 0; i < 3; i++) expect(limiter.consume("k", 3, T0).allowed).toBe(true);
    const refused = limiter.consume("k", 3, T0 + 10_000);
    expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, reset: T0 / 1000 + 60, retryAfter: 50 });
    expect(rateLimitHeaders(refused)["retry-after"]).toBe("50");
    expect(limiter.consume("k", 3, T0 + 59_999).allowed).toBe(false);
    const later = limiter.consume("k", 3, T0 + 60_000);
    expect(later.allowed).toBe(true);
    expect(later.remaining).toBe(2);
  });

  test("the window slides: requests spread over time leave one by one", () => {
    const limiter = new SlidingWindowLimiter();
    limiter.consume("k", 2, T0);
    limiter.consume("k", 2, T0 + 30_000);
    expect(limiter.consume("k", 2, T0 + 45_000).allowed).toBe(false);
    const afterFirstLeft = limiter.consume("k", 2, T0 + 60_000);
    expect(afterFirstLeft.allowed).toBe(true);
    expect(afterFirstLeft.remaining).toBe(0);
    expect(afterFirstLeft.reset).toBe(T0 / 1000 + 90);
  });

  test("refused requests are not counted, and keys are independent", () => {
    const limiter = new SlidingWindowLimiter();
    limiter.consume("a", 1, T0);
    for (let i = 0; i < 5; i++) limiter.consume("a", 1, T0 + 1000);
    expect(limiter.consume("a", 1, T0 + 60_000).allowed).toBe(true);
    expect(limiter.consume("b", 1, T0).allowed).toBe(true);
  });

  test("peek reports without counting", () => {
    const limiter = new SlidingWindowLimiter();
    expect(limiter.peek("k", 5, T0).remaining).toBe(5);
    limiter.consume("k", 5, T0);
    expect(limiter.peek("k", 5, T0).remaining).toBe(4);
    expect(limiter.peek("k", 5, T0).remaining).toBe(4);
  });

  test("idle windows are swept", () => {
    const limiter = new SlidingWindowLimiter();
    limiter.consume("old", 5, T0);
    limiter.consume("new", 5, T0 + 120_000);
    expect(limiter.size).toBe(1);
  });
});
