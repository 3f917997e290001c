import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { findUserByEmail } from "../../src/auth/user-store.ts";
import { createClient } from "../../src/clients/service.ts";
import { onDatabase, queryRow } from "../helpers/query.ts";
import { BUN, BUN_FLAGS, ROOT, createUserWithKey, expectProblem, expectRateHeaders, startServer, type TestServer } from "../helpers/server.ts";

/**
 * Error behaviour of the whole HTTP surface against a real server: problem+json shape, the headers
 * every response carries, rate limiting, per-field validation errors, and hostile input.
 */

// The server's stderr joins its stdout, so `server.lines` shows error logs and stack traces too.
const MERGED_OUTPUT = ["/bin/sh", "-c", 'exec "$0" "$@" 2>&1', BUN, ...BUN_FLAGS, join(ROOT, "src/main.ts")];
const FETCH_TIMEOUT_MS = 5000;

let server: TestServer; // pro 1000 (the admin key makes ~80 requests here), others at their defaults
let limited: TestServer; // pro=5, free=3, anonymous=4
let readUsageKey: string;

/** Every answer the main server gave a test: request id and status, to compare with its request log. */
const seen: { id: string | null; status: number; path: string }[] = [];

/** `server.api` with a timeout, so a hang fails the test instead of stalling it. */
async function call(target: TestServer, path: string, init: Parameters<TestServer["api"]>[1] = {}): Promise<Response> {
  const response = await target.api(path, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), ...init });
  if (target === server) seen.push({ id: response.headers.get("x-request-id"), status: response.status, path });
  return response;
}

const post = (key: string, json: unknown) => ({ method: "POST", key, json });
const nowSeconds = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  [server, limited] = await Promise.all([
    startServer({ command: MERGED_OUTPUT, args: ["--rate-limits", "pro=1000"] }),
    startServer({ command: MERGED_OUTPUT, args: ["--rate-limits", "pro=5,free=3,anonymous=4"] }),
  ]);
  readUsageKey = await createUserWithKey(server, "usage-only@example.com", "read:usage");
});

afterAll(async () => {
  await Promise.all([server?.stop(), limited?.stop()]);
});

describe("problem+json shape", () => {
  test("400 validation_error carries an errors array", async () => {
    const body = (await expectProblem(await call(server, "/api/v1/feedback", post(server.adminKey, { message: "" })), 400, "validation_error")) as any;
    expect(body.errors).toEqual([{ field: "message", code: "too_short", message: expect.any(String) }]);
  });

  test("401 unauthorized without a credential, with an unknown key, and with a non-Bearer scheme", async () => {
    await expectProblem(await call(server, "/api/v1/me"), 401, "unauthorized");
    await expectProblem(await call(server, "/api/v1/me", { key: "vb_live_" + "x".repeat(40) }), 401, "unauthorized");
    await expectProblem(await call(server, "/api/v1/me", { headers: { Authorization: "Basic YWRtaW46YWRtaW4=" } }), 401, "unauthorized");
  });

  test("403 insufficient_scope for a key with only read:usage on GET /api/v1/clients", async () => {
    const body = await expectProblem(await call(server, "/api/v1/clients", { key: readUsageKey }), 403, "insufficient_scope");
    expect(body.detail).toContain("read:meetings");
    // The same key works where no scope is needed: the 403 is about scope, not the key.
    expect((await call(server, "/api/v1/me", { key: readUsageKey })).status).toBe(200);
  });

  test("404 not_found for an unknown path, with and without a credential", async () => {
    await expectProblem(await call(server, "/api/v1/nope", { key: server.adminKey }), 404, "not_found");
    await expectProblem(await call(server, "/api/v1/nope"), 404, "not_found");
    await expectProblem(await call(server, "/api/v1/nope", { method: "POST", key: server.adminKey, json: {} }), 404, "not_found");
  });

  test("405 method_not_allowed with an Allow header", async () => {
    const response = await call(server, "/api/v1/me", { method: "DELETE", key: server.adminKey });
    expect(response.headers.get("allow")).toBe("GET");
    await expectProblem(response, 405, "method_not_allowed");
    const feedback = await call(server, "/api/v1/feedback", { key: server.adminKey });
    expect(feedback.headers.get("allow")).toBe("POST");
    await expectProblem(feedback, 405, "method_not_allowed");
  });

  test("429 rate_limited with Retry-After", async () => {
    const key = await createUserWithKey(limited, "shape-429@example.com", "all", "free");
    for (let i = 0; i < 3; i++) expect((await call(limited, "/api/v1/me", { key })).status).toBe(200);
    const response = await call(limited, "/api/v1/me", { key });
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    await expectProblem(response, 429, "rate_limited");
  });
});

describe("headers on every response", () => {
  test("X-Request-Id and X-RateLimit-* on every kind of answer; request ids are unique", async () => {
    const key = server.adminKey;
    const kinds: [string, number, () => Promise<Response>][] = [
      ["200", 200, () => call(server, "/api/v1/me", { key })],
      ["201", 201, () => call(server, "/api/v1/feedback", post(key, { message: "headers" }))],
      ["400", 400, () => call(server, "/api/v1/feedback", post(key, { message: 1 }))],
      ["401", 401, () => call(server, "/api/v1/me")],
      ["404", 404, () => call(server, "/api/v1/nope")],
      ["405", 405, () => call(server, "/api/v1/me", { method: "PATCH", key })],
      ["415", 415, () => call(server, "/api/v1/feedback", { method: "POST", key, headers: { "Content-Type": "text/plain" }, body: '{"message":"x"}' })],
      ["431", 431, () => call(server, "/api/v1/me", { key, headers: { "X-Padding": "a".repeat(20_000) } })],
      ["/healthz", 200, () => call(server, "/healthz")],
      ["/readyz", 200, () => call(server, "/readyz")],
      ["/api/openapi.json", 200, () => call(server, "/api/openapi.json")],
      ["/docs/api/errors", 200, () => call(server, "/docs/api/errors")],
    ];
    const ids: string[] = [];
    for (const [label, status, send] of kinds) {
      const response = await send();
      expect({ label, status: response.status }).toEqual({ label, status });
      expectRateHeaders(response);
      ids.push(response.headers.get("x-request-id")!);
      await response.arrayBuffer();
    }

    // 429 from the limited server: a fresh free key (limit 3) used up.
    const freeKey = await createUserWithKey(limited, "headers-429@example.com", "all", "free");
    for (let i = 0; i < 3; i++) await (await call(limited, "/api/v1/me", { key: freeKey })).arrayBuffer();
    const tooMany = await call(limited, "/api/v1/me", { key: freeKey });
    expect(tooMany.status).toBe(429);
    expectRateHeaders(tooMany);
    expect(tooMany.headers.get("x-ratelimit-limit")).toBe("3");
    ids.push(tooMany.headers.get("x-request-id")!);

    // Concurrent requests get distinct ids too.
    const burst = await Promise.all(Array.from({ length: 20 }, () => call(server, "/api/v1/me", { key })));
    for (const response of burst) {
      expectRateHeaders(response);
      ids.push(response.headers.get("x-request-id")!);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("X-RateLimit-* values describe the caller's own window", async () => {
    const key = await createUserWithKey(server, "window@example.com", "all", "standard");
    const first = await call(server, "/api/v1/me", { key });
    const second = await call(server, "/api/v1/me", { key });
    expect(first.headers.get("x-ratelimit-limit")).toBe("60");
    expect(Number(first.headers.get("x-ratelimit-remaining"))).toBe(59);
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(58);
    const reset = Number(second.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(nowSeconds() - 1);
    expect(reset).toBeLessThanOrEqual(nowSeconds() + 60);
    // GET /v1/me reports the same window as the headers.
    const me = (await second.json()) as any;
    expect(me.rate_limit).toMatchObject({ limit: 60, remaining: 58, reset });
  });
});

describe("rate limiting (pro=5, free=3, anonymous=4)", () => {
  test("a pro key gets 5 requests with Remaining 4..0, then 429 with Retry-After and Reset", async () => {
    const before = nowSeconds();
    const resets = new Set<string>();
    for (let expected = 4; expected >= 0; expected--) {
      const response = await call(limited, "/api/v1/me", { key: limited.adminKey });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBe("5");
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(expected));
      expect(response.headers.get("retry-after")).toBeNull();
      resets.add(response.headers.get("x-ratelimit-reset")!);
    }
    const response = await call(limited, "/api/v1/me", { key: limited.adminKey });
    const after = nowSeconds();
    expect(response.status).toBe(429);
    const retryAfter = response.headers.get("retry-after")!;
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(response.headers.get("x-ratelimit-limit")).toBe("5");
    const reset = Number(response.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(before);
    expect(reset).toBeLessThanOrEqual(after + 60);
    // The window ends when its oldest request leaves it: the same instant for all six answers,
    // and Retry-After points at it.
    resets.add(String(reset));
    expect(resets.size).toBe(1);
    expect(Math.abs(reset - after - Number(retryAfter))).toBeLessThanOrEqual(1);
    const body = await expectProblem(response, 429, "rate_limited");
    expect(body.detail).toContain("5");

    // Still refused: a refused request does not free or extend anything.
    const again = await call(limited, "/api/v1/me", { key: limited.adminKey });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("x-ratelimit-reset"))).toBe(reset);
  });

  test("other keys have their own windows", async () => {
    // Another user's pro key.
    const other = await createUserWithKey(limited, "other-pro@example.com", "all", "pro");
    const first = await call(limited, "/api/v1/me", { key: other });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit")).toBe("5");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("4");

    // A second key of the admin user: limits are per credential.
    const created = await limited.admin("key", "create", "--email", "admin@localhost", "--name", "second", "--scopes", "all", "--json");
    expect(created.code).toBe(0);
    const second = await call(limited, "/api/v1/me", { key: (JSON.parse(created.stdout) as any).key });
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-remaining")).toBe("4");

    // A free key gets the free limit.
    const free = await createUserWithKey(limited, "free@example.com", "all", "free");
    const freeResponse = await call(limited, "/api/v1/me", { key: free });
    expect(freeResponse.status).toBe(200);
    expect(freeResponse.headers.get("x-ratelimit-limit")).toBe("3");
    expect(freeResponse.headers.get("x-ratelimit-remaining")).toBe("2");

    // Their traffic did not free the admin's key, nor did the admin's exhaustion touch theirs.
    expect((await call(limited, "/api/v1/me", { key: limited.adminKey })).status).toBe(429);
    expect((await call(limited, "/api/v1/me", { key: other })).headers.get("x-ratelimit-remaining")).toBe("3");
  });

  test("/healthz and /readyz show the anonymous window without using it, and are never refused", async () => {
    for (let i = 0; i < 8; i++) {
      for (const path of ["/healthz", "/readyz"]) {
        const response = await call(limited, path);
        expect(response.status).toBe(200);
        expect(response.headers.get("x-ratelimit-limit")).toBe("4");
        expect(response.headers.get("x-ratelimit-remaining")).toBe("4");
      }
    }
  });

  test("anonymous requests are limited per address at 4", async () => {
    for (let expected = 3; expected >= 0; expected--) {
      const response = await call(limited, "/api/v1/me");
      expect(response.status).toBe(401);
      expect(response.headers.get("x-ratelimit-limit")).toBe("4");
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(expected));
    }
    const refused = await call(limited, "/api/v1/nope");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    await expectProblem(refused, 429, "rate_limited");
    // A key that is not valid counts with the anonymous requests of its address.
    expect((await call(limited, "/api/v1/me", { key: "vb_live_" + "y".repeat(40) })).status).toBe(429);
    // Public documents count too.
    expect((await call(limited, "/api/openapi.json")).status).toBe(429);
    // A valid key is not affected by the address's anonymous window.
    const fresh = await createUserWithKey(limited, "after-anon@example.com", "all", "pro");
    expect((await call(limited, "/api/v1/me", { key: fresh })).status).toBe(200);
  });

  test("health probes still answer 200 once the address's window is used up", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const response = await call(limited, path);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(response.headers.get("retry-after")).toBeNull();
      expectRateHeaders(response);
    }
  });
});

describe("validation errors list one entry per wrong field", () => {
  test("five wrong fields give five entries", async () => {
    const response = await call(
      server,
      "/api/v1/feedback",
      post(server.adminKey, { type: "nope", message: "", meeting_id: "123", extra: 1, other: 2 }),
    );
    const body = (await expectProblem(response, 400, "validation_error")) as any;
    expect(body.errors).toHaveLength(5);
    const byField = Object.fromEntries((body.errors as any[]).map((e) => [e.field, e]));
    expect(Object.keys(byField).sort()).toEqual(["extra", "meeting_id", "message", "other", "type"]);
    expect(byField.type.code).toBe("invalid_value");
    expect(byField.message.code).toBe("too_short");
    expect(byField.meeting_id.code).toBe("invalid_format");
    expect(byField.extra.code).toBe("unknown_field");
    expect(byField.other.code).toBe("unknown_field");
    for (const entry of body.errors) {
      expect(Object.keys(entry).sort()).toEqual(["code", "field", "message"]);
      expect(entry.message.length).toBeGreaterThan(0);
    }
    // Nothing was stored.
    const count = await queryRow<{ n: number }>(server, sql`SELECT count(*) AS n FROM feedback WHERE message = ''`);
    expect(count!.n).toBe(0);
  });

  test("a missing message is required", async () => {
    const body = (await expectProblem(await call(server, "/api/v1/feedback", post(server.adminKey, { type: "bug" })), 400, "validation_error")) as any;
    expect(body.errors).toEqual([{ field: "message", code: "required", message: expect.any(String) }]);
  });

  test("an empty body counts as {}: message required", async () => {
    const response = await call(server, "/api/v1/feedback", { method: "POST", key: server.adminKey, headers: { "Content-Type": "application/json" } });
    const body = (await expectProblem(response, 400, "validation_error")) as any;
    expect(body.errors.map((e: any) => [e.field, e.code])).toEqual([["message", "required"]]);
  });

  test("a whitespace-only message is too short", async () => {
    const body = (await expectProblem(await call(server, "/api/v1/feedback", post(server.adminKey, { message: "   \n\t " })), 400, "validation_error")) as any;
    expect(body.errors.map((e: any) => [e.field, e.code])).toEqual([["message", "too_short"]]);
  });

  test("wrong types are invalid_type", async () => {
    const body = (await expectProblem(await call(server, "/api/v1/feedback", post(server.adminKey, { message: 42, type: null })), 400, "validation_error")) as any;
    const byField = Object.fromEntries((body.errors as any[]).map((e) => [e.field, e.code]));
    expect(byField.message).toBe("invalid_type");
    expect(Object.keys(byField).sort()).toEqual(["message", "type"]);
  });

  test("a message of 10001 characters is too_long; exactly 10000 is accepted", async () => {
    const tooLong = await call(server, "/api/v1/feedback", post(server.adminKey, { message: "a".repeat(10_001) }));
    const body = (await expectProblem(tooLong, 400, "validation_error")) as any;
    expect(body.errors.map((e: any) => [e.field, e.code])).toEqual([["message", "too_long"]]);

    const exact = await call(server, "/api/v1/feedback", post(server.adminKey, { message: "b".repeat(10_000), type: "bug" }));
    expect(exact.status).toBe(201);
    expectRateHeaders(exact);
    const created = (await exact.json()) as any;
    expect(created).toMatchObject({ object: "feedback", type: "bug", status: "received", meeting_id: null });
    expect(created.message).toHaveLength(10_000);
    expect(created.id).toMatch(/^fb_\d+$/);
  });
});

describe("bad input never gives a 500 or a hang", () => {
  const feedback = (init: RequestInit) => call(server, "/api/v1/feedback", { method: "POST", key: server.adminKey, ...init });
  const json = { "Content-Type": "application/json" };

  test("malformed JSON is 400 malformed_body", async () => {
    await expectProblem(await feedback({ headers: json, body: '{"message":' }), 400, "malformed_body");
    await expectProblem(await feedback({ headers: json, body: "{'message': 'single quotes'}" }), 400, "malformed_body");
    await expectProblem(await feedback({ headers: json, body: '{"message":"x"} trailing' }), 400, "malformed_body");
  });

  test("a non-JSON content type is 415 unsupported_media_type", async () => {
    const body = await expectProblem(
      await feedback({ headers: { "Content-Type": "text/plain" }, body: '{"message":"plain"}' }),
      415,
      "unsupported_media_type",
    );
    expect(body.detail).toContain("application/json");
    await expectProblem(
      await feedback({ headers: { "Content-Type": "application/json; charset=latin1" }, body: '{"message":"latin"}' }),
      415,
      "unsupported_media_type",
    );
    await expectProblem(
      await feedback({ headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "message=form" }),
      415,
      "unsupported_media_type",
    );
    // The JSON media type is matched without regard to case, and charset=utf-8 is fine.
    const ok = await feedback({ headers: { "Content-Type": "Application/JSON; Charset=UTF-8" }, body: '{"message":"utf-8 declared"}' });
    expect(ok.status).toBe(201);
  });

  test("headers over 16 KiB are 431 request_header_fields_too_large", async () => {
    await expectProblem(
      await call(server, "/api/v1/me", { key: server.adminKey, headers: { "X-Padding": "a".repeat(20_000) } }),
      431,
      "request_header_fields_too_large",
    );
    // Many headers that add up to more than 16 KiB, none of them large.
    const many: Record<string, string> = {};
    for (let i = 0; i < 40; i++) many[`X-Padding-${i}`] = "b".repeat(500);
    await expectProblem(await call(server, "/api/v1/me", { key: server.adminKey, headers: many }), 431, "request_header_fields_too_large");
    // Just under the limit is served.
    expect((await call(server, "/api/v1/me", { key: server.adminKey, headers: { "X-Padding": "c".repeat(12_000) } })).status).toBe(200);
  });

  test("a 100 KB header gets a 4xx answer from Bun itself, not a hang or a 5xx", async () => {
    const response = await call(server, "/api/v1/me", { key: server.adminKey, headers: { "X-Padding": "d".repeat(100_000) } });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    await response.arrayBuffer();
    expect((await call(server, "/api/v1/me", { key: server.adminKey })).status).toBe(200);
  });

  test("unknown fields are 400 unknown_field", async () => {
    const body = (await expectProblem(await call(server, "/api/v1/feedback", post(server.adminKey, { message: "ok", admin: true })), 400, "validation_error")) as any;
    expect(body.errors).toEqual([{ field: "admin", code: "unknown_field", message: expect.any(String) }]);
  });

  test("SQL-looking text is stored verbatim and harms nothing", async () => {
    const message = "'; DROP TABLE feedback; --";
    const response = await call(server, "/api/v1/feedback", post(server.adminKey, { message, type: "question" }));
    expect(response.status).toBe(201);
    const created = (await response.json()) as any;
    expect(created.message).toBe(message);
    const id = Number(/^fb_(\d+)$/.exec(created.id)![1]);
    const row = await queryRow(server, sql`SELECT message, type FROM feedback WHERE id = ${id}`);
    expect(row).toEqual({ message, type: "question" });
    // The table is still there and takes more rows.
    const next = await call(server, "/api/v1/feedback", post(server.adminKey, { message: "still here" }));
    expect(next.status).toBe(201);
    expect(Number(((await next.json()) as any).id.slice(3))).toBeGreaterThan(id);
  });

  test("an SQL-looking q on /api/v1/clients matches nothing", async () => {
    await onDatabase(server, async (q) => {
      const admin = (await findUserByEmail(q, "admin@localhost"))!;
      await createClient(q, admin.id, { name: "Acme Legal" });
    });
    const all = await call(server, "/api/v1/clients", { key: server.adminKey });
    expect(all.status).toBe(200);
    expect(((await all.json()) as any).data.map((c: any) => c.name)).toContain("Acme Legal");

    const injected = await call(server, "/api/v1/clients?q=%27%20OR%201%3D1%20--", { key: server.adminKey });
    expect(injected.status).toBe(200);
    expectRateHeaders(injected);
    expect(((await injected.json()) as any).data).toEqual([]);
    const quoted = await call(server, `/api/v1/clients?q=${encodeURIComponent('acme" OR ""="')}`, { key: server.adminKey });
    expect(((await quoted.json()) as any).data).toEqual([]);
  });

  test("bad query values are 400, not 500", async () => {
    const body = (await expectProblem(
      await call(server, "/api/v1/clients?include_archived=yes", { key: server.adminKey }),
      400,
      "validation_error",
    )) as any;
    expect(body.errors.map((e: any) => e.field)).toEqual(["include_archived"]);
    const repeated = await call(server, "/api/v1/clients?q=a&q=b", { key: server.adminKey });
    expect(repeated.status).toBe(400);
    // A broken percent-escape is taken as text.
    const broken = await call(server, "/api/v1/clients?q=%E0%A4%A", { key: server.adminKey });
    expect(broken.status).toBe(200);
  });

  test("a body that is not UTF-8 is 400 malformed_body", async () => {
    // {"message":"\xff\xfe"}
    const bytes = new Uint8Array([0x7b, 0x22, 0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    await expectProblem(await feedback({ headers: json, body: bytes }), 400, "malformed_body");
  });

  test("a body over 1 MiB is 413 request_too_large, with or without Content-Length", async () => {
    const big = JSON.stringify({ message: "e".repeat(1024 * 1024 + 16) });
    await expectProblem(await feedback({ headers: json, body: big }), 413, "request_too_large");

    const chunk = new TextEncoder().encode("f".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"message":"'));
        if (sent >= 20) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        controller.enqueue(chunk);
        sent++;
      },
    });
    await expectProblem(await feedback({ headers: json, body: stream }), 413, "request_too_large");
    // Just under the limit is read and judged by the schema (too long a message), not refused as too large.
    const under = JSON.stringify({ message: "g".repeat(1024 * 1024 - 100) });
    const body = (await expectProblem(await feedback({ headers: json, body: under }), 400, "validation_error")) as any;
    expect(body.errors.map((e: any) => e.code)).toEqual(["too_long"]);
  });

  test("a JSON array or string as the body is 400 validation_error", async () => {
    for (const value of [[], ["message"], "message", 42, null, true]) {
      const body = (await expectProblem(await feedback({ headers: json, body: JSON.stringify(value) }), 400, "validation_error")) as any;
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].field).toBe("body");
    }
  });

  test("deeply nested JSON is refused cleanly", async () => {
    const depth = 200_000;
    const response = await feedback({ headers: json, body: "[".repeat(depth) + "]".repeat(depth) });
    expect(response.status).toBe(400);
    expect(["malformed_body", "validation_error"]).toContain(((await response.json()) as any).code);
  });

  test("null bytes in strings are accepted or refused cleanly", async () => {
    const message = "before\u0000after";
    const response = await call(server, "/api/v1/feedback", post(server.adminKey, { message }));
    expect([201, 400]).toContain(response.status);
    if (response.status === 201) {
      const created = (await response.json()) as any;
      expect(created.message).toBe(message);
      const id = Number(created.id.slice(3));
      const row = await queryRow<{ message: string }>(server, sql`SELECT message FROM feedback WHERE id = ${id}`);
      expect(row!.message).toBe(message);
    } else {
      await expectProblem(response, 400, "validation_error");
    }
    const inQuery = await call(server, "/api/v1/clients?q=%00", { key: server.adminKey });
    expect([200, 400]).toContain(inQuery.status);
  });

  test("odd paths are 404", async () => {
    for (const path of ["/api/v1/%00", "/api/v1/me/..%2f..%2fetc", "/api/v1/" + "x".repeat(4000), "/api//v1/me"]) {
      const response = await call(server, path, { key: server.adminKey });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      await response.arrayBuffer();
    }
  });

  test("the service still answers afterwards", async () => {
    const response = await call(server, "/api/v1/me", { key: server.adminKey });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).user.email).toBe("admin@localhost");
  });
});

describe("server output", () => {
  test("no request was answered with 500 and nothing logged an error or a stack trace", async () => {
    const lastId = seen.at(-1)!.id!;
    // The request log is written in batches; wait for the last request to show up.
    for (let i = 0; i < 50 && !server.lines.some((l) => l.includes(lastId)); i++) await Bun.sleep(100);
    const requestLines = server.lines
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as any)
      .filter((l) => l.msg === "request");
    expect(requestLines.length).toBeGreaterThan(50);
    expect(requestLines.filter((l) => l.status >= 500)).toEqual([]);
    // Every answer the tests saw was logged with the status the client got. (Bun's own 431 for the
    // 100 KB header never reaches the service, so it has no request id.)
    const logged = new Map(requestLines.map((l) => [l.request_id, l.status]));
    for (const answer of seen.filter((s) => s.id !== null)) {
      expect({ path: answer.path, status: logged.get(answer.id) }).toEqual({ path: answer.path, status: answer.status });
    }
    expect(seen.every((s) => s.status < 500)).toBe(true);
    const suspicious = server.lines.filter((l) => /"level":"error"|^\s+at\s|Error:|panic|Segmentation/.test(l));
    expect(suspicious).toEqual([]);
    // The limited server too.
    const limitedSuspicious = limited.lines.filter((l) => /"level":"error"|^\s+at\s|Error:|"status":5\d\d/.test(l));
    expect(limitedSuspicious).toEqual([]);
  });
});
