import { expect, test } from "bun:test";
import type { Principal } from "../auth/authenticate.ts";
import { API_VERSION } from "../lib/version.ts";
import { accountRoutes } from "./routes.ts";
import { accountSchema } from "./schema.ts";

const [me] = accountRoutes();

function principalOf(id: string, name: string | null, expiresAt: number | null): Principal {
  return {
    user: { id: `usr_${id}`, email: `${id}@example.com`, name, plan: "standard", createdAt: Date.UTC(2026, 0, 2) },
    credential: { type: expiresAt === null ? "api_key" : "oauth", id: `key_${id}`, name: 'quote " and \\ slash', scopes: ["read:meetings"], expiresAt },
    rateKey: `key:key_${id}`,
  } as unknown as Principal;
}

function account(principal: Principal, remaining: number) {
  const reply = me!.handle({
    principal,
    rate: { allowed: true, limit: 60, remaining, reset: 1_800_000_060, retryAfter: 0 },
  } as never) as { status: number; json: string };
  expect(reply.status).toBe(200);
  return JSON.parse(reply.json);
}

test("GET /v1/me: the account's JSON, escaped, in the documented shape, with this request's rate limit", () => {
  const principal = principalOf("a", "Zoë <admin>", null);
  const first = account(principal, 59);
  expect(accountSchema.parse(first)).toEqual(first);
  expect(first).toEqual({
    object: "account",
    user: { id: "usr_a", object: "user", email: "a@example.com", name: "Zoë <admin>", created_at: "2026-01-02T00:00:00.000Z" },
    plan: "standard",
    credential: { type: "api_key", id: "key_a", name: 'quote " and \\ slash', scopes: ["read:meetings"], expires_at: null },
    rate_limit: { limit: 60, remaining: 59, reset: 1_800_000_060, window_seconds: 60 },
    api_version: API_VERSION,
  });
  // The unchanging part is reused; the rate limit is this request's.
  expect(account(principal, 12).rate_limit.remaining).toBe(12);
});

test("GET /v1/me: each principal has its own account, an access token its expiry", () => {
  const token = account(principalOf("b", null, 1_800_000_000), 1);
  expect(token.user.id).toBe("usr_b");
  expect(token.credential).toMatchObject({ type: "oauth", expires_at: "2027-01-15T08:00:00.000Z" });
  expect(account(principalOf("a", "Other", null), 1).user.name).toBe("Other");
});
