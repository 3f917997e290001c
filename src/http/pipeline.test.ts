import { describe, expect, test } from "bun:test";
import type { Authenticator } from "../auth/authenticate.ts";
import { DEFAULT_BODY_PACE } from "../lib/body-deadline.ts";
import { SlidingWindowLimiter } from "./middleware/rate-limit/index.ts";
import { createPipeline } from "./pipeline.ts";

function anonymousPipeline(limit: number) {
  return createPipeline({
    authenticator: { authenticate: async () => ({ kind: "anonymous" }) } as unknown as Authenticator,
    limiter: new SlidingWindowLimiter(),
    limits: { free: 1, standard: 1, pro: 1, anonymous: limit },
    clock: { now: () => 1_800_000_000_000 },
    docsUrl: "http://localhost/docs",
    maxHeaderBytes: 16 * 1024,
    bodyPace: DEFAULT_BODY_PACE,
    uncountedPaths: new Set(),
    route: async () => new Response("ok"),
    onUnexpectedError: () => {},
  });
}

describe("anonymous rate limiting", () => {
  test("IPv6 clients of one /64 share one window, so rotating addresses does not escape it", async () => {
    const handle = anonymousPipeline(2);
    const request = () => new Request("http://localhost/api/v1/me");
    expect((await handle(request(), () => "2001:db8:5:6::1")).status).toBe(200);
    expect((await handle(request(), () => "2001:db8:5:6::2")).status).toBe(200);
    const third = await handle(request(), () => "2001:db8:5:6:ffff::3");
    expect(third.status).toBe(429);
    // Another /64 has its own window.
    expect((await handle(request(), () => "2001:db8:5:7::1")).status).toBe(200);
  });

  test("IPv4 clients are counted per address", async () => {
    const handle = anonymousPipeline(1);
    const request = () => new Request("http://localhost/api/v1/me");
    expect((await handle(request(), () => "192.0.2.1")).status).toBe(200);
    expect((await handle(request(), () => "192.0.2.2")).status).toBe(200);
    expect((await handle(request(), () => "192.0.2.1")).status).toBe(429);
  });
});
