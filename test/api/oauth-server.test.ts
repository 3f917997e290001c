// The built-in OAuth 2.1 authorization server (issue 24 item 1), over real HTTP, on both dialects:
// metadata, registration, CIMD against a loopback https document, the token endpoint, rotation,
// reuse detection, revocation, and the service accepting its tokens (GET /v1/me). The consent page
// is the web app's: these tests make the code with oauth/app.ts's issueCode on the server's database.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AccessTokens } from "../../src/auth/access-tokens.ts";
import type { Actor } from "../../src/auth/actor.ts";
import { getUserByEmail } from "../../src/auth/user-store.ts";
import { NO_AUDIT_TRAIL } from "../../src/audit/types.ts";
import { systemClock } from "../../src/lib/time.ts";
import { parseEgressAllow } from "../../src/net/egress.ts";
import { oauthApp, type OAuthApp } from "../../src/oauth/app.ts";
import { s256 } from "../../src/oauth/pkce.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { LOOPBACK_CA, LOOPBACK_CA_FILE, startReceiver, type Receiver } from "../support/webhook-receiver.ts";

const REDIRECT = "http://127.0.0.1/callback";
const VERIFIER = "a-verifier-of-at-least-43-characters-0123456789";

let server: TestServer;
let consent: OAuthApp;
let actor: Actor;
let documentHost: Receiver;

beforeAll(async () => {
  server = await startServer({ args: ["--egress-allow", "127.0.0.1", "--ca-file", LOOPBACK_CA_FILE] });
  const conn = server.conn();
  // The consent page's side of the flow (slice OW's page calls the same use cases): the server's
  // database, this server's public URL. It never mints a token (the endpoint under test does).
  consent = oauthApp({
    conn,
    clock: systemClock,
    audit: NO_AUDIT_TRAIL,
    tokens: undefined as unknown as AccessTokens,
    publicUrl: () => server.url,
    settings: { cimd: true, dcr: true, accessTtlSeconds: 3600, refreshTtlSeconds: 86_400 },
    egress: parseEgressAllow("127.0.0.1"),
    ca: LOOPBACK_CA,
  });
  const admin = (await getUserByEmail(conn, "admin@localhost"))!;
  actor = { account: { userId: admin.id, plan: admin.plan }, channel: "webapp", credential: { type: "web_session", id: "test" } };
  documentHost = startReceiver();
}, 60_000);

afterAll(async () => {
  documentHost?.stop();
  await server?.stop();
});

function form(path: string, fields: Record<string, string>) {
  return server.api(path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
}

async function register(body: unknown) {
  return server.api("/oauth/register", { method: "POST", json: body });
}

async function approvedCode(clientId: string, resource = `${server.url}/mcp`, scope = "read:meetings read:transcripts"): Promise<string> {
  const check = await consent.checkAuthorizationRequest({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: s256(VERIFIER),
    code_challenge_method: "S256",
    scope,
    state: "xyz",
    resource,
  });
  if (check.kind !== "valid") throw new Error(JSON.stringify(check));
  const { redirectTo } = await consent.issueCode(actor, check.request, check.request.scopes);
  const url = new URL(redirectTo);
  expect(url.searchParams.get("iss")).toBe(server.url);
  expect(url.searchParams.get("state")).toBe("xyz");
  return url.searchParams.get("code")!;
}

function exchange(clientId: string, code: string, extra: Record<string, string> = {}) {
  return form("/oauth/token", { grant_type: "authorization_code", code, code_verifier: VERIFIER, redirect_uri: REDIRECT, client_id: clientId, ...extra });
}

/** Polls until the token is refused; answers how long that took (the revocation must reach the authenticator within a second). */
async function msUntilRefused(token: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 5000) {
    if ((await server.api("/api/v1/me", { key: token })).status === 401) return Date.now() - started;
    await Bun.sleep(50);
  }
  return Infinity;
}

let dcrClient: string;

describe("metadata", () => {
  test("authorization server metadata (RFC 8414)", async () => {
    const response = await server.api("/.well-known/oauth-authorization-server");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      scopes_supported: expect.arrayContaining(["read:meetings", "read:transcripts", "write:documents"]),
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  test("protected resource metadata (RFC 9728), for the API and path-scoped for /mcp", async () => {
    for (const [path, resource] of [["/.well-known/oauth-protected-resource", "/api"], ["/.well-known/oauth-protected-resource/mcp", "/mcp"]]) {
      const body = (await (await server.api(path!)).json()) as Record<string, unknown>;
      expect(body).toMatchObject({ resource: `${server.url}${resource}`, authorization_servers: [server.url], bearer_methods_supported: ["header"] });
      expect(body.scopes_supported).toContain("read:transcripts");
    }
  });
});

test("the OpenAPI document lists the OAuth endpoints, at the root", async () => {
  const document = (await (await server.api("/api/openapi.json")).json()) as any;
  for (const [path, method] of [["/oauth/token", "post"], ["/oauth/revoke", "post"], ["/oauth/register", "post"], ["/.well-known/oauth-authorization-server", "get"], ["/.well-known/oauth-protected-resource/mcp", "get"]]) {
    const operation = document.paths[path!]?.[method!];
    expect(operation?.servers).toEqual([{ url: server.url }]);
  }
  expect(Object.keys(document.paths["/oauth/token"].post.requestBody.content)).toEqual(["application/x-www-form-urlencoded"]);
  expect(document.paths["/oauth/token"].post.responses["400"].content["application/json"]).toBeDefined();
});

describe("dynamic client registration (RFC 7591)", () => {
  test("a public client is registered; bad metadata is refused with RFC 7591 errors", async () => {
    const created = await register({ client_name: "Test assistant", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const body = (await created.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ client_name: "Test assistant", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] });
    dcrClient = body.client_id as string;

    const wrongUri = await register({ redirect_uris: ["http://attacker.example/cb"] });
    expect(wrongUri.status).toBe(400);
    expect(await wrongUri.json()).toMatchObject({ error: "invalid_redirect_uri" });
    const secretClient = await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_post" });
    expect(await secretClient.json()).toMatchObject({ error: "invalid_client_metadata" });
    const huge = await register({ redirect_uris: [REDIRECT], padding: "x".repeat(20_000) });
    expect(huge.status).toBe(400);
  });
});

describe("the token endpoint", () => {
  test("code + PKCE give a token GET /v1/me accepts as oauth; the code is single use; no token is logged", async () => {
    const code = await approvedCode(dcrClient, `${server.url}/api`);
    const response = await exchange(dcrClient, code);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const tokens = (await response.json()) as Record<string, string>;
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "read:meetings read:transcripts" });

    const me = await server.api("/api/v1/me", { key: tokens.access_token });
    expect(me.status).toBe(200);
    expect(((await me.json()) as any).credential).toMatchObject({ type: "oauth", name: dcrClient, scopes: ["read:meetings", "read:transcripts"] });
    // Scoped like any credential: no write:meetings, no meeting creation.
    expect((await server.api("/api/v1/meetings", { method: "POST", key: tokens.access_token, json: {} })).status).toBe(403);

    const replay = await exchange(dcrClient, code);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
    // The replay revoked the grant: its access token stops within a second.
    expect(await msUntilRefused(tokens.access_token!)).toBeLessThan(1500);

    const logged = server.lines.join("\n") + server.errorLines.join("\n");
    for (const secret of [code, tokens.access_token!, tokens.refresh_token!]) expect(logged).not.toContain(secret);
  });

  test("refresh tokens rotate; reusing one revokes the grant and its access tokens", async () => {
    const first = (await (await exchange(dcrClient, await approvedCode(dcrClient))).json()) as Record<string, string>;
    const refreshed = await form("/oauth/token", { grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: dcrClient });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as Record<string, string>;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    // A token bound to /mcp is this service's too: GET /v1/me takes it.
    expect((await server.api("/api/v1/me", { key: second.access_token })).status).toBe(200);

    const reused = await form("/oauth/token", { grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: dcrClient });
    expect(await reused.json()).toMatchObject({ error: "invalid_grant" });
    expect(await msUntilRefused(second.access_token!)).toBeLessThan(1500);
    const afterReuse = await form("/oauth/token", { grant_type: "refresh_token", refresh_token: second.refresh_token!, client_id: dcrClient });
    expect(await afterReuse.json()).toMatchObject({ error: "invalid_grant" });
  });

  test("malformed requests: not a form, repeated parameters, unknown grant type", async () => {
    const json = await server.api("/oauth/token", { method: "POST", json: { grant_type: "authorization_code" } });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: "invalid_request" });
    const repeated = await server.api("/oauth/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token&grant_type=refresh_token" });
    expect(await repeated.json()).toMatchObject({ error: "invalid_request" });
    expect(await (await form("/oauth/token", { grant_type: "client_credentials" })).json()).toMatchObject({ error: "unsupported_grant_type" });
    const big = await form("/oauth/token", { grant_type: "refresh_token", refresh_token: "x".repeat(20_000) });
    expect(big.status).toBe(400);
    // A client that sends credentials anyway (HTTP Basic) gets the OAuth answer, not the API's 401.
    const basic = await server.api("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${dcrClient}:`)}` },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "unknown", client_id: dcrClient }).toString(),
    });
    expect(basic.status).toBe(400);
    expect(await basic.json()).toMatchObject({ error: "invalid_grant" });
  });
});

describe("revocation (RFC 7009)", () => {
  test("a refresh token revokes its grant; an unknown token still answers 200", async () => {
    const tokens = (await (await exchange(dcrClient, await approvedCode(dcrClient))).json()) as Record<string, string>;
    expect((await form("/oauth/revoke", { token: tokens.refresh_token!, token_type_hint: "refresh_token" })).status).toBe(200);
    expect(await msUntilRefused(tokens.access_token!)).toBeLessThan(1500);
    expect((await form("/oauth/revoke", { token: "not-a-token" })).status).toBe(200);
    expect(await (await form("/oauth/revoke", {})).json()).toMatchObject({ error: "invalid_request" });
  });
});

describe("client ID metadata documents", () => {
  test("fetched from a loopback https URL through the egress guard; its client_id must be its URL", async () => {
    const documentUrl = `${documentHost.url}/client.json`;
    documentHost.answer((request) => {
      const path = new URL(request.url).pathname;
      if (path === "/client.json") return Response.json({ client_id: documentUrl, client_name: "Metadata client", redirect_uris: [REDIRECT] }, { headers: { "cache-control": "max-age=600" } });
      if (path === "/liar.json") return Response.json({ client_id: "https://someone-else.example/client.json", redirect_uris: [REDIRECT] });
      return Response.json({ client_id: `${documentHost.url}${path}`, redirect_uris: [REDIRECT], padding: "x".repeat(6000) });
    });
    const tokens = (await (await exchange(documentUrl, await approvedCode(documentUrl))).json()) as Record<string, string>;
    expect(((await (await server.api("/api/v1/me", { key: tokens.access_token })).json()) as any).credential.name).toBe(documentUrl);
    expect((await consent.resolveClient(documentUrl)).name).toBe("Metadata client");
    for (const refused of ["/liar.json", "/huge.json"]) {
      const check = await consent.checkAuthorizationRequest({ client_id: `${documentHost.url}${refused}`, redirect_uri: REDIRECT });
      expect(check).toMatchObject({ kind: "page_error" });
    }
  });
});

describe("registration rate", () => {
  test("at most 10 registrations an hour per address", async () => {
    // One was made above (and two refused ones counted): the rest of the hour's 10 are taken here.
    let status = 0;
    for (let i = 0; i < 10 && status !== 429; i++) status = (await register({ redirect_uris: [REDIRECT] })).status;
    expect(status).toBe(429);
    const refused = await register({ redirect_uris: [REDIRECT] });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

test("--oauth-dcr=false --oauth-cimd=false: no registration endpoint, and the metadata says so", async () => {
  const closed = await startServer({ args: ["--oauth-dcr=false", "--oauth-cimd=false"] });
  try {
    const metadata = (await (await closed.api("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
    expect(metadata.registration_endpoint).toBeUndefined();
    expect(metadata.client_id_metadata_document_supported).toBe(false);
    expect((await closed.api("/oauth/register", { method: "POST", json: { redirect_uris: [REDIRECT] } })).status).toBe(404);
  } finally {
    await closed.stop();
  }
}, 60_000);
