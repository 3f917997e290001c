import { describe, expect, test } from "bun:test";
import { z } from "zod";
import type { Principal } from "../auth/authenticate.ts";
import { DEFAULT_BODY_PACE } from "../lib/body-deadline.ts";
import { attachContext } from "./request-context.ts";
import { access, defineRoute } from "./route.ts";
import { createRouter } from "./router.ts";

const principal = {
  user: { id: "usr_1", email: "a@example.com", name: null, plan: "pro", createdAt: 0 },
  credential: { type: "api_key", id: "key_1", name: null, scopes: [], expiresAt: null },
  rateKey: "key:key_1",
} as unknown as Principal;

const rate = { allowed: true, limit: 10, remaining: 9, reset: 1_800_000_060, retryAfter: 0 };

function requestTo(path: string, init?: RequestInit): Request {
  const request = new Request(`http://127.0.0.1:8080${path}`, init);
  attachContext(request, {
    requestId: "req_test",
    auth: { kind: "authenticated", principal },
    rate,
    bodyPace: DEFAULT_BODY_PACE,
    clientAddress: () => "127.0.0.1",
    commonHeaders: { "x-request-id": "req_test" },
  });
  return request;
}

const router = createRouter(
  [
    defineRoute({
      method: "GET",
      path: "/api/v1/now",
      operationId: "now",
      summary: "answers at once",
      tag: "Test",
      access: access.any,
      responses: { 200: { description: "ok" } },
      handle: () => ({ status: 200, body: { answered: "at once" } }),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/later/:id",
      operationId: "later",
      summary: "answers in a promise",
      tag: "Test",
      access: access.any,
      params: z.object({ id: z.string().regex(/^x_\d+$/) }),
      responses: { 200: { description: "ok" } },
      handle: async ({ params }) => ({ status: 200, body: { id: params.id } }),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/raw",
      operationId: "raw",
      summary: "a body the handler serialized",
      tag: "Test",
      access: access.any,
      responses: { 200: { description: "ok" } },
      handle: () => ({ status: 200, json: '{"raw":true}' }),
    }),
  ],
  { docsUrl: "http://127.0.0.1:8080/docs", onUnexpectedError: () => {}, onWarning: () => {} },
);

describe("router", () => {
  test("a route whose handler answers at once gives its Response without a promise", async () => {
    // Elysia compiles a handler it guesses async into an async wrapper; the router must not look async.
    const response = router.fetch(requestTo("/api/v1/now"));
    expect(response).toBeInstanceOf(Response);
    expect(response).not.toBeInstanceOf(Promise);
    const settled = response as Response;
    expect(settled.headers.get("x-request-id")).toBe("req_test");
    expect(settled.headers.get("content-type")).toBe("application/json");
    expect(await settled.json()).toEqual({ answered: "at once" });
  });

  test("a handler's promise is awaited, with its path params validated: one that cannot name anything is 404", async () => {
    const response = await router.fetch(requestTo("/api/v1/later/x_7"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: "x_7" });
    const refused = await router.fetch(requestTo("/api/v1/later/y"));
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { code: string }).code).toBe("not_found");
  });

  test("a body the handler serialized is sent as it is, as JSON", async () => {
    const response = await router.fetch(requestTo("/api/v1/raw"));
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe('{"raw":true}');
  });

  test("an unknown path is 404 and a known path with another method 405 with Allow", async () => {
    const missing = await router.fetch(requestTo("/api/v1/nowhere"));
    expect(missing.status).toBe(404);
    const wrongMethod = await router.fetch(requestTo("/api/v1/now", { method: "DELETE" }));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
  });
});
