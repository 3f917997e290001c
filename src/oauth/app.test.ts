import { beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { actingAndOther } from "../../test/support/actor.ts";
import { freshDatabaseEachTest } from "../../test/support/database.ts";
import { AccessTokens } from "../auth/access-tokens.ts";
import type { Actor } from "../auth/actor.ts";
import { Authenticator } from "../auth/authenticate.ts";
import { loadOrCreateSigningKey } from "../auth/signing-key.ts";
import type { AuditEntry } from "../audit/types.ts";
import { sql } from "drizzle-orm";
import { deleteAccountRows } from "../account/store.ts";
import { run, type DbConn } from "../db/conn.ts";
import { exec, rows } from "../db/sql.ts";
import { emptyEgressPolicy } from "../net/egress.ts";
import { oauthApp, type OAuthApp, type ValidatedRequest } from "./app.ts";
import { s256 } from "./pkce.ts";

const keyDir = mkdtempSync(join(tmpdir(), "verbatim-oauth-key-"));
const key = await loadOrCreateSigningKey(keyDir);
rmSync(keyDir, { recursive: true, force: true });

const PUBLIC = "https://verbatim.example";
const MCP = `${PUBLIC}/mcp`;
const REDIRECT = "http://127.0.0.1/callback";
const VERIFIER = "v".repeat(43);

let conn: DbConn;
let app: OAuthApp;
let tokens: AccessTokens;
let actor: Actor;
let other: Actor;
let now: number;
let audited: AuditEntry[];

freshDatabaseEachTest("oauth", async (database) => {
  conn = database.conn;
  now = 1_800_000_000_000;
  audited = [];
  tokens = new AccessTokens({ localIssuer: "verbatim-local", audience: "verbatim-api", maxLocalTtlSeconds: 86_400 }, key, { resources: () => [MCP, `${PUBLIC}/api`] });
  app = oauthApp({
    conn,
    clock: { now: () => now },
    audit: { record: (entry) => void audited.push(entry), flush: async () => {} },
    tokens,
    publicUrl: () => PUBLIC,
    settings: { cimd: true, dcr: true, accessTtlSeconds: 3600, refreshTtlSeconds: 86_400 },
    egress: emptyEgressPolicy(),
  });
  [actor, other] = await actingAndOther(conn);
});

async function registered(redirectUris = [REDIRECT]): Promise<string> {
  const result = await app.register({ client_name: "Assistant", redirect_uris: redirectUris });
  if (!result.ok) throw new Error(result.description);
  return result.body.client_id as string;
}

function authorizeParams(clientId: string, extra: Record<string, string | undefined> = {}) {
  return { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: s256(VERIFIER), code_challenge_method: "S256", scope: "read:meetings read:transcripts", state: "st", resource: MCP, ...extra };
}

async function validated(clientId: string, extra: Record<string, string | undefined> = {}): Promise<ValidatedRequest> {
  const check = await app.checkAuthorizationRequest(authorizeParams(clientId, extra));
  if (check.kind !== "valid") throw new Error(JSON.stringify(check));
  return check.request;
}

async function codeFor(clientId: string, who = actor): Promise<{ code: string; grantId: string }> {
  const { redirectTo, grantId } = await app.issueCode(who, await validated(clientId), ["read:meetings"]);
  const url = new URL(redirectTo);
  expect(url.searchParams.get("state")).toBe("st");
  expect(url.searchParams.get("iss")).toBe(PUBLIC);
  return { code: url.searchParams.get("code")!, grantId };
}

function exchange(clientId: string, code: string, extra: Record<string, string> = {}) {
  return app.token(new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId, resource: MCP, ...extra }), "127.0.0.1");
}

function refresh(clientId: string, refreshToken: string) {
  return app.token(new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }), "127.0.0.1");
}

describe("registration (RFC 7591)", () => {
  test("public clients only, at most 10 redirect URIs of an allowed kind", async () => {
    expect(await app.register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" })).toMatchObject({ ok: false, error: "invalid_client_metadata" });
    expect(await app.register({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) })).toMatchObject({ ok: false, error: "invalid_redirect_uri" });
    expect(await app.register({ redirect_uris: ["http://evil.example/cb"] })).toMatchObject({ ok: false, error: "invalid_redirect_uri" });
    expect(await app.register({ redirect_uris: [REDIRECT], client_name: "x".repeat(201) })).toMatchObject({ ok: false, error: "invalid_client_metadata" });
    expect(await app.register("not an object")).toMatchObject({ ok: false });
    const clientId = await registered();
    expect(clientId).toMatch(/^ocl_/);
    expect((await app.resolveClient(clientId)).name).toBe("Assistant");
  });
});

describe("authorization requests", () => {
  test("an unknown client or an unregistered redirect URI is a page error, never a redirect", async () => {
    expect(await app.checkAuthorizationRequest(authorizeParams("ocl_unknown"))).toMatchObject({ kind: "page_error" });
    const clientId = await registered();
    expect(await app.checkAuthorizationRequest(authorizeParams(clientId, { redirect_uri: "https://evil.example/cb" }))).toMatchObject({ kind: "page_error" });
    expect(await app.checkAuthorizationRequest(authorizeParams(clientId, { redirect_uri: undefined }))).toMatchObject({ kind: "page_error" });
  });

  test("other errors go back to the client with state and iss", async () => {
    const clientId = await registered();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge: "short" }, "invalid_request"],
      [{ resource: undefined }, "invalid_target"],
      [{ resource: "https://elsewhere.example/mcp" }, "invalid_target"],
      [{ scope: "read:meetings admin:everything" }, "invalid_scope"],
      [{ scope: "x".repeat(1001) }, "invalid_scope"],
    ];
    for (const [extra, error] of cases) {
      const check = await app.checkAuthorizationRequest(authorizeParams(clientId, extra));
      expect(check.kind).toBe("redirect_error");
      const url = new URL((check as { redirectTo: string }).redirectTo);
      expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
      expect(url.searchParams.get("error")).toBe(error);
      expect(url.searchParams.get("state")).toBe("st");
      expect(url.searchParams.get("iss")).toBe(PUBLIC);
    }
  });

  test("a loopback redirect may use another port; no scope asks for every scope", async () => {
    const clientId = await registered();
    const request = await validated(clientId, { redirect_uri: "http://127.0.0.1:49152/callback", scope: undefined });
    expect(request.redirectUri).toBe("http://127.0.0.1:49152/callback");
    expect(request.scopes).toContain("write:documents");
    expect(request.redirectHost).toBe("127.0.0.1:49152");
  });

  test("consent narrows the scopes; denying sends access_denied", async () => {
    const clientId = await registered();
    const request = await validated(clientId);
    await expect(app.issueCode(actor, request, ["webhooks"])).rejects.toThrow(RangeError);
    expect(new URL(app.denyRedirect(request)).searchParams.get("error")).toBe("access_denied");
    await app.issueCode(actor, request, ["read:transcripts", "webhooks"]);
    const [grant] = await app.listGrants(actor);
    expect(grant!.scopes).toEqual(["read:transcripts"]);
    expect(audited.map((e) => e.action)).toContain("oauth_grant.created");
  });
});

describe("the token endpoint", () => {
  test("a code gives an access token bound to its resource and grant, once", async () => {
    const clientId = await registered();
    const { code, grantId } = await codeFor(clientId);
    const reply = await exchange(clientId, code);
    expect(reply.status).toBe(200);
    const body = reply.body as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "read:meetings" });
    const verified = await tokens.verify(body.access_token as string);
    expect(verified).toMatchObject({ subject: actor.account.userId, grantId, audience: MCP, clientId, scopes: ["read:meetings"] });
    expect(audited.find((e) => e.action === "oauth_token.minted")?.detail?.jti).toBe(verified.tokenId!);
    expect(JSON.stringify(audited)).not.toContain(body.access_token as string);

    // Replayed: refused, and the grant it issued is revoked (its tokens stop, its refresh token too).
    expect((await exchange(clientId, code)).body).toMatchObject({ error: "invalid_grant" });
    expect(await app.grantIsLive(grantId)).toBe(false);
    expect(await app.listGrants(actor)).toEqual([]);
    expect((await refresh(clientId, body.refresh_token as string)).body).toMatchObject({ error: "invalid_grant" });
  });

  test("a code is refused with another verifier, redirect_uri, client or resource, and is spent by the try", async () => {
    const clientId = await registered();
    const otherClient = await registered();
    const variants: Record<string, string>[] = [{ code_verifier: "w".repeat(43) }, { redirect_uri: "http://127.0.0.1:1/callback" }, { client_id: otherClient }, { resource: `${PUBLIC}/api` }];
    for (const extra of variants) {
      const { code } = await codeFor(clientId);
      expect((await exchange(clientId, code, extra)).body).toMatchObject({ error: "invalid_grant" });
      expect((await exchange(clientId, code)).body).toMatchObject({ error: "invalid_grant" });
    }
  });

  test("a code lives 60 seconds", async () => {
    const clientId = await registered();
    const { code } = await codeFor(clientId);
    now += 60_001;
    expect((await exchange(clientId, code)).body).toMatchObject({ error: "invalid_grant" });
  });

  test("missing parameters and unknown grant types are invalid_request / unsupported_grant_type", async () => {
    expect((await app.token(new URLSearchParams({ grant_type: "password" }), null)).body).toMatchObject({ error: "unsupported_grant_type" });
    expect((await app.token(new URLSearchParams({}), null)).body).toMatchObject({ error: "invalid_request" });
    expect((await app.token(new URLSearchParams({ grant_type: "authorization_code", code: "c" }), null)).body).toMatchObject({ error: "invalid_request" });
  });

  test("refresh tokens rotate; a reused one revokes the whole grant", async () => {
    const clientId = await registered();
    const { code, grantId } = await codeFor(clientId);
    const first = (await exchange(clientId, code)).body as Record<string, string>;
    now += 1000;
    const second = await refresh(clientId, first.refresh_token!);
    expect(second.status).toBe(200);
    const rotated = second.body as Record<string, string>;
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    expect((await tokens.verify(rotated.access_token!)).grantId).toBe(grantId);
    // Another client may not use it.
    expect((await refresh(await registered(), rotated.refresh_token!)).body).toMatchObject({ error: "invalid_grant" });
    // The first one again: reuse, the grant is revoked, the newest refresh token dies with it.
    expect((await refresh(clientId, first.refresh_token!)).body).toMatchObject({ error: "invalid_grant" });
    expect(await app.grantIsLive(grantId)).toBe(false);
    expect(audited.some((e) => e.action === "oauth_grant.revoked" && e.detail?.reason === "refresh_token_reused")).toBe(true);
  });

  test("a refresh may narrow the scope, never widen it", async () => {
    const clientId = await registered();
    const { code } = await codeFor(clientId);
    const first = (await exchange(clientId, code)).body as Record<string, string>;
    const wider = await app.token(new URLSearchParams({ grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: clientId, scope: "read:meetings webhooks" }), null);
    expect(wider.body).toMatchObject({ error: "invalid_scope" });
  });
});

describe("grants", () => {
  test("revoked by their owner only; another account's id is not found", async () => {
    const clientId = await registered();
    const { grantId } = await codeFor(clientId);
    expect(await app.revokeGrant(other, grantId)).toBe(false);
    expect(await app.grantIsLive(grantId)).toBe(true);
    expect(await app.revokeGrant(actor, grantId)).toBe(true);
    expect(await app.grantIsLive(grantId)).toBe(false);
    expect(await app.revokeGrant(actor, grantId)).toBe(false);
  });

  test("the liveness answer is cached at most a second", async () => {
    const clientId = await registered();
    const { grantId } = await codeFor(clientId);
    expect(await app.grantIsLive(grantId)).toBe(true);
    // Revoked by another node (straight in the database): this node sees it once its second is over.
    const { revokeGrant } = await import("./store.ts");
    await revokeGrant(conn, grantId, now);
    expect(await app.grantIsLive(grantId)).toBe(true);
    now += 1000;
    expect(await app.grantIsLive(grantId)).toBe(false);
  });

  test("revocation (RFC 7009) by refresh token or access token revokes the grant; anything else is ignored", async () => {
    const clientId = await registered();
    for (const which of ["refresh_token", "access_token"]) {
      const { code, grantId } = await codeFor(clientId);
      const body = (await exchange(clientId, code)).body as Record<string, string>;
      await app.revokeToken(body[which]!, null);
      expect(await app.grantIsLive(grantId)).toBe(false);
    }
    await app.revokeToken("nonsense", null);
    await app.revokeToken("x".repeat(100_000), null);
  });
});

describe("client ID metadata documents", () => {
  test("turned off: an https client_id is refused with a message to show", async () => {
    const off = oauthApp({ conn, clock: { now: () => now }, audit: { record() {}, flush: async () => {} }, tokens, publicUrl: () => PUBLIC, settings: { cimd: false, dcr: true, accessTtlSeconds: 3600, refreshTtlSeconds: 60 }, egress: emptyEgressPolicy() });
    expect(await off.checkAuthorizationRequest(authorizeParams("https://client.example/meta.json"))).toMatchObject({ kind: "page_error", message: expect.stringContaining("register") });
  });

  test("a document the egress guard refuses is a page error that names no address", async () => {
    const check = await app.checkAuthorizationRequest(authorizeParams("https://127.0.0.1:1/client.json"));
    expect(check).toMatchObject({ kind: "page_error" });
    expect((check as { message: string }).message).not.toContain("127.0.0.1");
  });
});

describe("the account's end", () => {
  test("a disabled account's refresh tokens are refused", async () => {
    const clientId = await registered();
    const { code } = await codeFor(clientId);
    const body = (await exchange(clientId, code)).body as Record<string, string>;
    await run(conn, (q) => exec(q, sql`UPDATE users SET disabled_at = ${now} WHERE id = ${actor.account.userId}`));
    expect((await refresh(clientId, body.refresh_token!)).body).toMatchObject({ error: "invalid_grant", error_description: "The account is disabled." });
  });

  test("deleting the account deletes its grants, codes and refresh tokens", async () => {
    const clientId = await registered();
    const { code, grantId } = await codeFor(clientId);
    await exchange(clientId, code);
    await codeFor(clientId);
    await codeFor(clientId, other);
    await deleteAccountRows(conn, actor.account.userId, { refuseUnfinishedJobs: false, now });
    expect(await app.grantIsLive(grantId)).toBe(false);
    const left = await run(conn, (q) => rows<{ n: number }>(q, sql`SELECT (SELECT count(*) FROM oauth_grants) + (SELECT count(*) FROM oauth_codes) + (SELECT count(*) FROM oauth_refresh_tokens) AS n`));
    // The other account's grant and code remain.
    expect(Number(left[0]!.n)).toBe(2);
  });
});

describe("the authenticator and the tokens", () => {
  test("a token of a live grant authenticates with its audience; once revoked, it is refused", async () => {
    const clientId = await registered();
    const { code, grantId } = await codeFor(clientId);
    const body = (await exchange(clientId, code)).body as Record<string, string>;
    const authenticator = new Authenticator(conn, tokens, { now: () => now }, (id) => app.grantIsLive(id));
    const outcome = await authenticator.authenticate(`Bearer ${body.access_token}`);
    expect(outcome).toMatchObject({ kind: "authenticated", principal: { audience: MCP, credential: { type: "oauth", name: clientId, scopes: ["read:meetings"] } } });
    await app.revokeGrant(actor, grantId);
    expect(await authenticator.authenticate(`Bearer ${body.access_token}`)).toMatchObject({ kind: "rejected", detail: "The access token's authorization was revoked." });
    // Without a grant check (a process that has no authorization server) such tokens are refused outright.
    expect(await new Authenticator(conn, tokens, { now: () => now }).authenticate(`Bearer ${body.access_token}`)).toMatchObject({ kind: "rejected" });
  });

  test("a token bound to a resource that is not this service's is refused", async () => {
    const { token } = await tokens.mint({ subject: actor.account.userId, email: "a@firm.example", scopes: ["read:meetings"], ttlSeconds: 60, audience: "https://elsewhere.example/mcp" });
    await expect(tokens.verify(token)).rejects.toThrow("wrong audience");
  });
});
