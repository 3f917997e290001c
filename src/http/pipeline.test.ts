import { describe, expect, test } from "bun:test";
import type { Authenticator } from "../auth/authenticate.ts";
import { DEFAULT_BODY_PACE } from "../lib/body-deadline.ts";
import { SlidingWindowLimiter } from "./rate-limit.ts";
import { createPipeline, WEB_PAGES_PER_MINUTE, type PipelineDeps } from "./pipeline.ts";

/** A pipeline with a fresh limiter, a fixed clock and a route answering "ok", as each test changes it. */
function testPipeline(authenticate: () => unknown, changes: Partial<PipelineDeps> = {}) {
  return createPipeline({
    authenticator: { authenticate } as unknown as Authenticator,
    limiter: new SlidingWindowLimiter(),
    limits: { free: 1, standard: 1, pro: 1, anonymous: 1 },
    clock: { now: () => 1_800_000_000_000 },
    docsUrl: "http://localhost/docs",
    maxHeaderBytes: 16 * 1024,
    bodyPace: DEFAULT_BODY_PACE,
    uncountedPaths: new Set(),
    route: async () => new Response("ok"),
    onUnexpectedError: () => {},
    ...changes,
  });
}

function anonymousPipeline(limit: number) {
  return testPipeline(async () => ({ kind: "anonymous" }), { limits: { free: 1, standard: 1, pro: 1, anonymous: limit } });
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

describe("the request path", () => {
  const principal = {
    user: { id: "usr_1", email: "a@example.com", name: null, plan: "pro", createdAt: 0 },
    credential: { type: "api_key", id: "key_1", name: null, scopes: [], expiresAt: null },
    rateKey: "key:key_1",
  };

  function pipeline(options: { authenticate: () => unknown; route: (request: Request) => Response | Promise<Response> }) {
    const logged: { status: number; credential: string | null }[] = [];
    const errors: unknown[] = [];
    const handle = testPipeline(options.authenticate, {
      limits: { free: 1, standard: 1, pro: 5, anonymous: 1 },
      requestLog: { record: (entry: { status: number; credential: string | null }) => logged.push(entry) } as never,
      route: options.route,
      onUnexpectedError: (error) => errors.push(error),
    });
    return { handle, logged, errors };
  }

  test("an API key whose route answers at once is answered without a promise, headers and log line included", () => {
    const { handle, logged } = pipeline({ authenticate: () => ({ kind: "authenticated", principal }), route: () => new Response("ok") });
    const response = handle(new Request("http://localhost/api/v1/me"), () => "192.0.2.1");
    expect(response).not.toBeInstanceOf(Promise);
    const settled = response as Response;
    expect(settled.headers.get("x-request-id")).toMatch(/^req_[A-Za-z0-9]{20}$/);
    expect(settled.headers.get("x-ratelimit-limit")).toBe("5");
    expect(settled.headers.get("x-ratelimit-remaining")).toBe("4");
    expect(logged).toEqual([expect.objectContaining({ status: 200, credential: "key:key_1" })]);
  });

  test("an access token verified in a promise, and a route answering in one, go the same way", async () => {
    const { handle, logged } = pipeline({
      authenticate: async () => ({ kind: "authenticated", principal }),
      route: async () => new Response("later", { status: 201 }),
    });
    const response = handle(new Request("http://localhost/api/v1/meetings"), () => "192.0.2.1");
    expect(response).toBeInstanceOf(Promise);
    const settled = await response;
    expect(settled.status).toBe(201);
    expect(settled.headers.get("x-ratelimit-remaining")).toBe("4");
    expect(logged).toEqual([expect.objectContaining({ status: 201, credential: "key:key_1" })]);
  });

  test("a route that throws, or whose promise fails, becomes a 500 problem that says nothing of the error", async () => {
    for (const route of [
      () => {
        throw new Error("/srv/verbatim/data secret");
      },
      async () => {
        throw new Error("/srv/verbatim/data secret");
      },
    ]) {
      const { handle, logged, errors } = pipeline({ authenticate: () => ({ kind: "authenticated", principal }), route });
      const response = await handle(new Request("http://localhost/api/v1/me"), () => "192.0.2.1");
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).toContain("internal_error");
      expect(text).not.toContain("secret");
      expect(response.headers.get("x-request-id")).toMatch(/^req_/);
      expect(errors).toHaveLength(1);
      expect(logged).toEqual([expect.objectContaining({ status: 500 })]);
    }
  });
});

describe("web pages", () => {
  test("a signed-in user's pages count against the user's window, the session read in a promise; signed out, the address's", async () => {
    const handle = testPipeline(() => ({ kind: "anonymous" }), {
      isWebPath: (path) => path.startsWith("/meetings"),
      webUserOf: async (request) => request.headers.get("cookie")?.slice("user=".length) ?? null,
      route: () => new Response("ok"),
    });
    const page = (user?: string) => new Request("http://localhost/meetings", user ? { headers: { cookie: `user=${user}` } } : {});
    const statuses = async (user: string | undefined, n: number) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push((await handle(page(user), () => "192.0.2.9")).status);
      return out;
    };
    // WEB_PAGES_PER_MINUTE each: one user's pages leave another's, and the address's, untouched.
    const ana = await statuses("ana", WEB_PAGES_PER_MINUTE + 1);
    expect(ana.indexOf(429)).toBe(WEB_PAGES_PER_MINUTE);
    expect(await statuses("ben", 1)).toEqual([200]);
    expect(await statuses(undefined, 1)).toEqual([200]);
  });
});
