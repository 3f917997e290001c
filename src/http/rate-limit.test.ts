import { describe, expect, test } from "bun:test";
import { LiveApiNodes, perNodeLimit, SlidingWindowLimiter, rateLimitHeaders, splitLimits } from "./rate-limit.ts";

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

describe("the per-node split across API nodes (PostgreSQL)", () => {
  test("each node enforces ceil(limit / live API nodes); one node (or none counted) keeps the whole limit", () => {
    expect(perNodeLimit(600, 1)).toBe(600);
    expect(perNodeLimit(600, 0)).toBe(600);
    expect(perNodeLimit(600, 2)).toBe(300);
    expect(perNodeLimit(600, 7)).toBe(86);
    // Rounded up: a limit smaller than the nodes still lets one request through on each.
    expect(perNodeLimit(1, 3)).toBe(1);
    // Spread evenly over n nodes, a key gets at least its limit and at most n - 1 more.
    for (const [limit, n] of [[600, 7], [10, 3], [5, 5], [100, 1]] as const) {
      expect(perNodeLimit(limit, n) * n).toBeGreaterThanOrEqual(limit);
      expect(perNodeLimit(limit, n) * n - limit).toBeLessThan(n);
    }
  });

  test("the split limits follow the live count at each read, with the configured names", () => {
    const live = { nodes: 1 };
    const limits = splitLimits({ free: 60, standard: 300, pro: 1000, anonymous: 30 }, live);
    expect({ ...limits }).toEqual({ free: 60, standard: 300, pro: 1000, anonymous: 30 });
    live.nodes = 3;
    expect({ ...limits }).toEqual({ free: 20, standard: 100, pro: 334, anonymous: 10 });
  });

  test("the live count is read at start and on refresh; a failed recount keeps the last one, and never below 1", async () => {
    const answers: Array<number | Error> = [2, new Error("connection refused"), 0, 4];
    const nodes = new LiveApiNodes(async () => {
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return next;
    });
    expect(nodes.nodes).toBe(1);
    await nodes.start();
    nodes.stop();
    expect(nodes.nodes).toBe(2);
    await nodes.refresh();
    expect(nodes.nodes).toBe(2);
    await nodes.refresh();
    expect(nodes.nodes).toBe(1);
    await nodes.refresh();
    expect(nodes.nodes).toBe(4);
  });
});
