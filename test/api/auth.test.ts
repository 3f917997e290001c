import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { exportJWK, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";
import { externalIdentities, revokedTokens } from "../../src/auth/table.ts";
import type { User } from "../../src/auth/users.ts";
import { findUserByEmail } from "../../src/auth/user-store.ts";
import { createClient } from "../../src/clients/service.ts";
import { jobs } from "../../src/jobs/table.ts";
import { randomId } from "../../src/lib/ids.ts";
import { meetings } from "../../src/meetings/table.ts";
import { onDatabase } from "../helpers/query.ts";
import { BUN, createUserWithKey, expectProblem, expectRateHeaders, ROOT, startServer, type TestServer } from "../helpers/server.ts";

// Many requests here are refused on purpose; refused requests count against the anonymous window
// of 127.0.0.1, so that window is raised to keep the 401s about credentials, not rate limits.
const LIMITS = ["--rate-limits", "anonymous=10000,free=10000,standard=10000,pro=10000"];

let server: TestServer;
let keyA: string; // all scopes, user A
let keyB: string; // all scopes, user B
let usageOnlyKey: string; // only read:usage
let userA: User;
let userB: User;

beforeAll(async () => {
  server = await startServer({ args: LIMITS });
  [keyA, keyB, usageOnlyKey] = await Promise.all([
    createUserWithKey(server, "alice@example.com"),
    createUserWithKey(server, "bob@example.com"),
    createUserWithKey(server, "narrow@example.com", "read:usage", "free"),
  ]);
  userA = (await onDatabase(server, (q) => findUserByEmail(q, "alice@example.com")))!;
  userB = (await onDatabase(server, (q) => findUserByEmail(q, "bob@example.com")))!;
});

afterAll(async () => {
  await server?.stop();
});

/** A token signed with the service's own key, as `admin token create` would, with any claims. */
async function localToken(claims: JWTPayload & { exp?: number }, key?: { privateKey: CryptoKey; kid: string }) {
  const own = key ?? (await serviceSigningKey());
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: "read:meetings", client_id: "test", ...claims })
    .setProtectedHeader({ alg: "ES256", kid: own.kid, typ: "at+jwt" })
    .setIssuedAt(claims.iat ?? now)
    .setJti(claims.jti ?? crypto.randomUUID())
    .setExpirationTime(claims.exp ?? now + 600)
    .sign(own.privateKey);
}

async function serviceSigningKey() {
  const jwk = JSON.parse(readFileSync(join(server.dataDir, "oauth", "signing-key.jwk.json"), "utf8")) as JWK;
  return { kid: jwk.kid!, privateKey: (await importJWK(jwk, "ES256")) as CryptoKey };
}

async function me(key: string) {
  const response = await server.api("/api/v1/me", { key });
  return { response, body: response.status === 200 ? ((await response.json()) as any) : undefined };
}

describe("missing or invalid credentials answer 401", () => {
  test("no Authorization header", async () => {
    const body = await expectProblem(await server.api("/api/v1/me"), 401, "unauthorized");
    expect(body.detail).toMatch(/Authorization/);
  });

  test("an empty Authorization header", async () => {
    await expectProblem(await server.api("/api/v1/me", { headers: { Authorization: "" } }), 401, "unauthorized");
  });

  for (const header of ["Basic x", "Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer a b", "Token vb_live_abc"]) {
    test(`malformed header ${JSON.stringify(header)}`, async () => {
      const response = await server.api("/api/v1/me", { headers: { Authorization: header } });
      await expectProblem(response, 401, "unauthorized");
    });
  }

  test("an unknown vb_live_ key", async () => {
    const body = await expectProblem(
      await server.api("/api/v1/me", { key: `vb_live_${"x".repeat(40)}` }),
      401,
      "unauthorized",
    );
    expect(body.detail).toMatch(/not valid/i);
  });

  test("a valid key with one character changed", async () => {
    const last = keyA.at(-1) === "a" ? "b" : "a";
    await expectProblem(await server.api("/api/v1/me", { key: keyA.slice(0, -1) + last }), 401, "unauthorized");
  });

  test("a bearer token that is neither a key nor a JWT", async () => {
    const body = await expectProblem(await server.api("/api/v1/me", { key: "not-a-token" }), 401, "unauthorized");
    expect(body.detail).toMatch(/neither an API key nor/);
  });

  test("a 401 also guards operations that need a scope, before any scope check", async () => {
    await expectProblem(await server.api("/api/v1/clients", { key: `vb_live_${"y".repeat(40)}` }), 401, "unauthorized");
    await expectProblem(await server.api("/api/v1/clients"), 401, "unauthorized");
  });

  test("a key revoked while the server runs answers 401 from the next request on", async () => {
    const created = await server.admin("key", "create", "--email", "alice@example.com", "--name", "to-revoke", "--scopes", "read:meetings", "--json");
    expect(created.code).toBe(0);
    const { id, key } = JSON.parse(created.stdout) as any;
    expect((await me(key)).response.status).toBe(200);

    const revoked = await server.admin("key", "revoke", "--id", id);
    expect(revoked.code).toBe(0);
    const body = await expectProblem(await server.api("/api/v1/me", { key }), 401, "unauthorized");
    expect(body.detail).toMatch(/revoked/i);
    await expectProblem(await server.api("/api/v1/clients", { key }), 401, "unauthorized");
    // The owner's other keys are untouched.
    expect((await me(keyA)).response.status).toBe(200);
  });
});

describe("API keys", () => {
  test("a valid key reaches GET /v1/me as api_key with its own scopes", async () => {
    const created = await server.admin(
      "key", "create", "--email", "bob@example.com", "--name", "ci", "--scopes", "read:meetings,read:transcripts", "--json",
    );
    expect(created.code).toBe(0);
    const { id, key } = JSON.parse(created.stdout) as any;
    const { response, body } = await me(key);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expectRateHeaders(response);
    expect(body.user.email).toBe("bob@example.com");
    expect(body.user.id).toBe(userB.id);
    expect(body.credential).toEqual({ type: "api_key", id, name: "ci", scopes: ["read:meetings", "read:transcripts"], expires_at: null });
  });

  test("the scheme name is case-insensitive", async () => {
    const response = await server.api("/api/v1/me", { headers: { Authorization: `bearer ${keyA}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).user.email).toBe("alice@example.com");
  });
});

describe("OAuth access tokens minted by this service", () => {
  test("admin token create gives a token that works, typed oauth, with the token's scopes", async () => {
    const minted = await server.admin("token", "create", "--email", "alice@example.com", "--scopes", "read:meetings,read:usage", "--json");
    expect(minted.code).toBe(0);
    const token = JSON.parse(minted.stdout) as any;
    expect(token.token_type).toBe("Bearer");
    expect(token.expires_in).toBe(3600);
    expect(token.scope).toBe("read:meetings read:usage");
    const { response, body } = await me(token.access_token);
    expect(response.status).toBe(200);
    expect(body.user.id).toBe(userA.id);
    expect(body.credential.type).toBe("oauth");
    expect(body.credential.scopes).toEqual(["read:meetings", "read:usage"]);
    expect(body.credential.name).toBe("verbatim-cli");
    const expiresAt = Date.parse(body.credential.expires_at);
    expect(Math.abs(expiresAt - (Date.now() + 3600_000))).toBeLessThan(60_000);
    // The scopes really are the token's: read:meetings opens the clients list.
    expect((await server.api("/api/v1/clients", { key: token.access_token })).status).toBe(200);
  });

  test("a token without a scope is refused with 403 where one is needed", async () => {
    const minted = await server.admin("token", "create", "--email", "alice@example.com", "--scopes", "read:usage", "--json");
    const { access_token } = JSON.parse(minted.stdout) as any;
    const body = await expectProblem(await server.api("/api/v1/clients", { key: access_token }), 403, "insufficient_scope");
    expect(body.detail).toContain("read:meetings");
  });

  test("a self-signed token with the service's key and the right claims is accepted (control)", async () => {
    const token = await localToken({ iss: "verbatim-local", aud: "verbatim-api", sub: userA.id });
    const { response, body } = await me(token);
    expect(response.status).toBe(200);
    expect(body.credential.type).toBe("oauth");
    expect(body.credential.scopes).toEqual(["read:meetings"]);
  });

  test("an expired token answers 401 mentioning expiry", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await localToken({ iss: "verbatim-local", aud: "verbatim-api", sub: userA.id, iat: now - 3600, exp: now - 60 });
    const body = await expectProblem(await server.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toMatch(/expired/i);
  });

  test("a token for another audience answers 401 mentioning the audience", async () => {
    const token = await localToken({ iss: "verbatim-local", aud: "someone-else", sub: userA.id });
    const body = await expectProblem(await server.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toMatch(/audience/i);
  });

  test("a token signed by a different key answers 401", async () => {
    const own = await serviceSigningKey();
    const { privateKey } = await generateKeyPair("ES256");
    const token = await localToken({ iss: "verbatim-local", aud: "verbatim-api", sub: userA.id }, { privateKey, kid: own.kid });
    const body = await expectProblem(await server.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toMatch(/signature/i);
  });

  test("an unsigned (alg none) token answers 401", async () => {
    const encode = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const now = Math.floor(Date.now() / 1000);
    const token = `${encode({ alg: "none", typ: "JWT" })}.${encode({ iss: "verbatim-local", aud: "verbatim-api", sub: userA.id, exp: now + 600, scope: "read:meetings" })}.`;
    await expectProblem(await server.api("/api/v1/me", { key: token }), 401, "unauthorized");
  });

  test("a token from an issuer the service does not trust answers 401", async () => {
    const token = await localToken({ iss: "https://evil.example", aud: "verbatim-api", sub: userA.id });
    const body = await expectProblem(await server.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toMatch(/issuer/i);
  });

  test("a token whose subject is not a user answers 401", async () => {
    const token = await localToken({ iss: "verbatim-local", aud: "verbatim-api", sub: "usr_doesnotexist0000", email: "ghost@example.com" });
    const body = await expectProblem(await server.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toMatch(/not a user/i);
  });

  test("a local token names its user by id only: an unknown subject is not rescued by an email claim", async () => {
    const token = await localToken({ iss: "verbatim-local", aud: "verbatim-api", sub: "usr_deleted000000000", email: "alice@example.com" });
    await expectProblem(await server.api("/api/v1/me", { key: token }), 401, "unauthorized");
  });

  test("a token without exp answers 401, even signed with the service's key", async () => {
    const own = await serviceSigningKey();
    const token = await new SignJWT({ scope: "read:meetings", client_id: "test" })
      .setProtectedHeader({ alg: "ES256", kid: own.kid, typ: "at+jwt" })
      .setIssuer("verbatim-local")
      .setAudience("verbatim-api")
      .setSubject(userA.id)
      .setIssuedAt()
      .setJti(crypto.randomUUID())
      .sign(own.privateKey);
    const body = await expectProblem(await server.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toBe("The access token has no exp claim.");
  });

  test("a token living longer than the maximum lifetime (default 24 h) answers 401; 24 h exactly is accepted", async () => {
    const now = Math.floor(Date.now() / 1000);
    const tooLong = await localToken({ iss: "verbatim-local", aud: "verbatim-api", sub: userA.id, iat: now, exp: now + 86_400 + 60 });
    const body = await expectProblem(await server.api("/api/v1/me", { key: tooLong }), 401, "unauthorized");
    expect(body.detail).toMatch(/lives longer than this service allows \(86400 s\)/);
    const longest = await localToken({ iss: "verbatim-local", aud: "verbatim-api", sub: userA.id, iat: now, exp: now + 86_400 });
    expect((await me(longest)).response.status).toBe(200);
  });

  test("a token revoked by jti (admin token revoke --jti) answers 401 from the next request on; the user's other tokens work", async () => {
    const mint = async () => {
      const minted = await server.admin("token", "create", "--email", "alice@example.com", "--scopes", "read:meetings", "--json");
      expect(minted.code).toBe(0);
      return JSON.parse(minted.stdout) as { access_token: string; jti: string };
    };
    const [victim, other] = [await mint(), await mint()];
    expect((await me(victim.access_token)).response.status).toBe(200);

    const revoked = await server.admin("token", "revoke", "--jti", victim.jti, "--json");
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ jti: victim.jti, revoked: true, already_revoked: false });
    const body = await expectProblem(await server.api("/api/v1/me", { key: victim.access_token }), 401, "unauthorized");
    expect(body.detail).toBe("The access token has been revoked.");
    await expectProblem(await server.api("/api/v1/clients", { key: victim.access_token }), 401, "unauthorized");
    expect((await me(other.access_token)).response.status).toBe(200);
  });

  test("admin token revoke --token takes the jti and the expiry from the token itself", async () => {
    const minted = JSON.parse(
      (await server.admin("token", "create", "--email", "alice@example.com", "--scopes", "read:usage", "--ttl", "600", "--json")).stdout,
    ) as { access_token: string; jti: string; expires_at: string };
    expect((await me(minted.access_token)).response.status).toBe(200);
    const revoked = await server.admin("token", "revoke", "--token", minted.access_token);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked token ${minted.jti}`);
    const [row] = await onDatabase(server, (q) => q.select().from(revokedTokens).where(eq(revokedTokens.jti, minted.jti)));
    expect(row?.expiresAt).toBe(Date.parse(minted.expires_at));
    const body = await expectProblem(await server.api("/api/v1/me", { key: minted.access_token }), 401, "unauthorized");
    expect(body.detail).toBe("The access token has been revoked.");
  });

  test("admin token create refuses an unknown user and a bad ttl", async () => {
    const unknown = await server.admin("token", "create", "--email", "nobody@example.com", "--scopes", "all");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no user with email nobody@example.com");
    const zero = await server.admin("token", "create", "--email", "alice@example.com", "--scopes", "all", "--ttl", "0");
    expect(zero.code).toBe(2);
  });
});

describe("OAuth access tokens from an external identity provider (JWKS)", () => {
  const ISSUER = "https://idp.example.test";
  let idp: ReturnType<typeof Bun.serve>;
  let external: TestServer;
  let idpKey: CryptoKey;
  let idpEcKey: CryptoKey;
  let idpRsaJwk: JWK;
  let jwksRequests = 0;
  const KID = "idp-key-1";
  const EC_KID = "idp-ec-1";

  beforeAll(async () => {
    const pair = await generateKeyPair("RS256");
    idpKey = pair.privateKey;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: "RS256", use: "sig" };
    idpRsaJwk = publicJwk;
    // A second key, EC P-256, with no alg of its own: its type alone pins it to ES256.
    const ec = await generateKeyPair("ES256");
    idpEcKey = ec.privateKey;
    const ecJwk = { ...(await exportJWK(ec.publicKey)), kid: EC_KID, use: "sig" };
    idp = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        if (new URL(request.url).pathname !== "/jwks.json") return new Response("not found", { status: 404 });
        jwksRequests++;
        return Response.json({ keys: [publicJwk, ecJwk] });
      },
    });
    external = await startServer({
      // http is allowed for the JWKS only because the egress allowlist names its (internal) host.
      args: [...LIMITS, "--oauth-issuer", ISSUER, "--oauth-jwks-url", `http://127.0.0.1:${idp.port}/jwks.json`, "--egress-allow", "127.0.0.1"],
    });
    for (const email of ["carol@example.com", "dave@example.com"]) {
      const created = await external.admin("user", "create", "--email", email, "--plan", "standard");
      if (created.code !== 0) throw new Error(created.stderr);
    }
  });

  afterAll(async () => {
    await external?.stop();
    idp?.stop(true);
  });

  function idpToken(claims: JWTPayload, key = idpKey, kid = KID) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: "read:meetings", azp: "firm-portal", email_verified: true, ...claims })
      .setProtectedHeader({ alg: "RS256", kid })
      .setIssuer(ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(key);
  }

  test("a token of the IdP naming an existing user by email is accepted with its scopes", async () => {
    const token = await idpToken({ aud: "verbatim-api", sub: "00u1abcdIdPsubject", email: "carol@example.com" });
    const response = await external.api("/api/v1/me", { key: token });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.user.email).toBe("carol@example.com");
    expect(body.plan).toBe("standard");
    expect(body.credential.type).toBe("oauth");
    expect(body.credential.scopes).toEqual(["read:meetings"]);
    expect(body.credential.name).toBe("firm-portal");
    expect(response.headers.get("x-ratelimit-limit")).toBe("10000");
    expect(jwksRequests).toBeGreaterThanOrEqual(1);
    // The scope is real: read:meetings opens the client list.
    expect((await external.api("/api/v1/clients", { key: token })).status).toBe(200);
  });

  test("email matching ignores case", async () => {
    const token = await idpToken({ aud: "verbatim-api", sub: "00u2", email: "Carol@Example.COM" });
    const response = await external.api("/api/v1/me", { key: token });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).user.email).toBe("carol@example.com");
  });

  test("an scp array is read as the scopes, unknown names dropped", async () => {
    const token = await idpToken({ aud: "verbatim-api", sub: "00u3", email: "dave@example.com", scope: undefined, scp: ["read:usage", "openid", "webhooks"] });
    const response = await external.api("/api/v1/me", { key: token });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).credential.scopes).toEqual(["read:usage", "webhooks"]);
    // Without read:meetings the client list is refused.
    await expectProblem(await external.api("/api/v1/clients", { key: token }), 403, "insufficient_scope");
  });

  test("the IdP's subject is its own: a sub equal to a local user id does not pick that user", async () => {
    const carol = (await onDatabase(external, (q) => findUserByEmail(q, "carol@example.com")))!;
    const noEmail = await idpToken({ aud: "verbatim-api", sub: carol.id });
    await expectProblem(await external.api("/api/v1/me", { key: noEmail }), 401, "unauthorized");
    const token = await idpToken({ aud: "verbatim-api", sub: carol.id, email: "dave@example.com" });
    const response = await external.api("/api/v1/me", { key: token });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).user.email).toBe("dave@example.com");
  });

  test("a token of the IdP for another audience answers 401", async () => {
    const token = await idpToken({ aud: "someone-else", sub: "00u1", email: "carol@example.com" });
    const body = await expectProblem(await external.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toMatch(/audience/i);
  });

  test("a token of the IdP for an email that is no user answers 401", async () => {
    const token = await idpToken({ aud: "verbatim-api", sub: "00u9", email: "stranger@example.com" });
    const body = await expectProblem(await external.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toMatch(/not a user/i);
  });

  test("a token claiming the IdP's issuer but signed by another key answers 401", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const sameKid = await idpToken({ aud: "verbatim-api", sub: "00u1", email: "carol@example.com" }, privateKey);
    await expectProblem(await external.api("/api/v1/me", { key: sameKid }), 401, "unauthorized");
    const otherKid = await idpToken({ aud: "verbatim-api", sub: "00u1", email: "carol@example.com" }, privateKey, "unknown-kid");
    await expectProblem(await external.api("/api/v1/me", { key: otherKid }), 401, "unauthorized");
  });

  /** Any header and claims, signed with any key: for tokens idpToken would not make. */
  function signedByIdp(claims: JWTPayload, header: { alg: string; kid?: string; typ?: string }, key: CryptoKey | Uint8Array, withExp = true) {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ scope: "read:meetings", email_verified: true, aud: "verbatim-api", ...claims })
      .setProtectedHeader({ kid: KID, ...header })
      .setIssuer(ISSUER)
      .setIssuedAt(now);
    return (withExp ? jwt.setExpirationTime(now + 600) : jwt).sign(key);
  }

  test("a token whose alg does not fit the type of the key its kid names answers 401", async () => {
    const claims = { sub: "00u-alg", email: "carol@example.com" };
    // Control: the EC key verifies ES256 tokens.
    expect((await external.api("/api/v1/me", { key: await signedByIdp(claims, { alg: "ES256", kid: EC_KID }, idpEcKey) })).status).toBe(200);
    // ES256 naming the RSA key, RS256 naming the EC key, PS256 naming the RSA key whose JWK says RS256.
    const { privateKey: psKey } = await generateKeyPair("PS256");
    for (const token of [
      await signedByIdp(claims, { alg: "ES256", kid: KID }, idpEcKey),
      await signedByIdp(claims, { alg: "RS256", kid: EC_KID }, idpKey),
      await signedByIdp(claims, { alg: "PS256", kid: KID }, psKey),
    ]) {
      const body = await expectProblem(await external.api("/api/v1/me", { key: token }), 401, "unauthorized");
      expect(body.detail).toMatch(/No key of the identity provider matches/);
    }
  });

  test("HS256 made with the IdP's public key (algorithm confusion) and alg none answer 401 before any key lookup", async () => {
    const secret = new TextEncoder().encode(JSON.stringify(idpRsaJwk));
    const hmac = await signedByIdp({ sub: "00u-hs", email: "carol@example.com" }, { alg: "HS256" }, secret);
    const body = await expectProblem(await external.api("/api/v1/me", { key: hmac }), 401, "unauthorized");
    expect(body.detail).toMatch(/algorithm is not accepted/);
    const encode = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const now = Math.floor(Date.now() / 1000);
    const none = `${encode({ alg: "none", kid: KID })}.${encode({ iss: ISSUER, aud: "verbatim-api", sub: "00u-none", email: "carol@example.com", email_verified: true, exp: now + 600, scope: "read:meetings" })}.`;
    await expectProblem(await external.api("/api/v1/me", { key: none }), 401, "unauthorized");
  });

  test("a token of the IdP without exp answers 401", async () => {
    const token = await signedByIdp({ sub: "00u-noexp", email: "carol@example.com" }, { alg: "RS256" }, idpKey, false);
    const body = await expectProblem(await external.api("/api/v1/me", { key: token }), 401, "unauthorized");
    expect(body.detail).toBe("The access token has no exp claim.");
  });

  test("ID tokens answer 401: nonce, at_hash, no scope at all, or a typ that is not an access token's", async () => {
    const base = { sub: "00u-id", email: "carol@example.com" };
    const refused = [
      await signedByIdp({ ...base, nonce: "n-0S6_WzA2Mj" }, { alg: "RS256", typ: "JWT" }, idpKey),
      await signedByIdp({ ...base, at_hash: "77QmUPtjPfzWtF2AnpK9RQ" }, { alg: "RS256" }, idpKey),
      await signedByIdp({ ...base, scope: undefined, azp: "verbatim-api" }, { alg: "RS256", typ: "JWT" }, idpKey),
      await signedByIdp(base, { alg: "RS256", typ: "logout+jwt" }, idpKey),
    ];
    for (const token of refused) {
      const body = await expectProblem(await external.api("/api/v1/me", { key: token }), 401, "unauthorized");
      expect(body.detail).toMatch(/ID token|not an access token/);
    }
  });

  test("the IdP's access tokens are accepted with typ JWT, at+jwt, application/at+jwt or none", async () => {
    for (const typ of ["JWT", "at+jwt", "application/at+jwt", undefined]) {
      const token = await signedByIdp({ sub: "00u1abcdIdPsubject", email: "carol@example.com" }, { alg: "RS256", typ }, idpKey);
      const response = await external.api("/api/v1/me", { key: token });
      expect(response.status).toBe(200);
      expect(((await response.json()) as any).user.email).toBe("carol@example.com");
    }
  });

  test("an email the IdP has not verified names no user (email_verified false, \"true\" or absent)", async () => {
    for (const emailVerified of [false, "true", undefined]) {
      const token = await idpToken({ aud: "verbatim-api", sub: `00u-unverified-${String(emailVerified)}`, email: "carol@example.com", email_verified: emailVerified });
      const body = await expectProblem(await external.api("/api/v1/me", { key: token }), 401, "unauthorized");
      expect(body.detail).toMatch(/not verified/);
    }
  });

  test("a verified email links the IdP's subject to the user; later tokens of that subject map to it whatever their email", async () => {
    const sub = "00u-linked-dave";
    const first = await idpToken({ aud: "verbatim-api", sub, email: "dave@example.com" });
    expect(((await (await external.api("/api/v1/me", { key: first })).json()) as any).user.email).toBe("dave@example.com");
    const dave = (await onDatabase(external, (q) => findUserByEmail(q, "dave@example.com")))!;
    const [link] = await onDatabase(external, (q) => q.select().from(externalIdentities).where(and(eq(externalIdentities.issuer, ISSUER), eq(externalIdentities.subject, sub))));
    expect(link?.userId).toBe(dave.id);

    // The person changed their email at the IdP (to carol's, unverified), or the token has none.
    for (const claims of [{ email: "carol@example.com", email_verified: false }, { email: "carol@example.com" }, { email: undefined, email_verified: undefined }]) {
      const later = await idpToken({ aud: "verbatim-api", sub, ...claims });
      const response = await external.api("/api/v1/me", { key: later });
      expect(response.status).toBe(200);
      expect(((await response.json()) as any).user.id).toBe(dave.id);
    }
    // Another subject of the same IdP with no email is not linked to anyone.
    const stranger = await idpToken({ aud: "verbatim-api", sub: "00u-never-seen", email: undefined });
    const body = await expectProblem(await external.api("/api/v1/me", { key: stranger }), 401, "unauthorized");
    expect(body.detail).toMatch(/not linked/);
  });

  test("the service's own tokens keep working next to the IdP's", async () => {
    const minted = await external.admin("token", "create", "--email", "dave@example.com", "--scopes", "read:meetings", "--json");
    expect(minted.code).toBe(0);
    const response = await external.api("/api/v1/me", { key: (JSON.parse(minted.stdout) as any).access_token });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).user.email).toBe("dave@example.com");
  });
});

describe("the IdP's JWKS is fetched through the egress guard", () => {
  test("a JWKS URL on an internal address not on the allowlist: tokens answer 401 and the address is never contacted", async () => {
    let connections = 0;
    const listener = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(socket) {
          connections++;
          socket.end();
        },
        data() {},
      },
    });
    // The allowlist opens another network, not loopback.
    const guarded = await startServer({
      args: [...LIMITS, "--oauth-issuer", "https://idp.internal.test", "--oauth-jwks-url", `https://127.0.0.1:${listener.port}/jwks.json`, "--egress-allow", "10.0.0.0/8"],
    });
    try {
      const { privateKey } = await generateKeyPair("RS256");
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ scope: "read:meetings", email: "admin@localhost", email_verified: true })
        .setProtectedHeader({ alg: "RS256", kid: "k" })
        .setIssuer("https://idp.internal.test")
        .setAudience("verbatim-api")
        .setSubject("00u-guarded")
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(privateKey);
      const body = await expectProblem(await guarded.api("/api/v1/me", { key: token }), 401, "unauthorized");
      await Bun.sleep(100);
      expect(connections).toBe(0);
      expect(body.detail).toBe("The identity provider's signing keys could not be fetched, so the access token cannot be verified.");
    } finally {
      await guarded.stop();
      listener.stop(true);
    }
  });

  test("serve refuses an http JWKS URL whose host the egress allowlist does not name, before starting", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "verbatim-jwks-"));
    try {
      // Killed after 10 s: a serve that accepted the URL would listen until stopped.
      const proc = Bun.spawn(
        [BUN, join(ROOT, "src/main.ts"), "serve", "--port", "0", "--data-dir", dataDir, "--oauth-issuer", "https://idp.example.test", "--oauth-jwks-url", "http://idp.example.test/jwks.json"],
        { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 10_000 },
      );
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect(code).toBe(2);
      expect(stderr).toContain("--oauth-jwks-url must be an https URL");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 15_000);
});

describe("scopes: a valid credential lacking the scope answers 403", () => {
  test("read:usage only on GET /v1/clients (needs read:meetings) → 403 insufficient_scope", async () => {
    const body = await expectProblem(await server.api("/api/v1/clients", { key: usageOnlyKey }), 403, "insufficient_scope");
    expect(body.detail).toContain("read:meetings");
  });

  test("GET /v1/me needs no scope", async () => {
    const { response, body } = await me(usageOnlyKey);
    expect(response.status).toBe(200);
    expect(body.credential.scopes).toEqual(["read:usage"]);
    expect(body.plan).toBe("free");
  });

  test("POST /v1/feedback needs no scope", async () => {
    const response = await server.api("/api/v1/feedback", { key: usageOnlyKey, method: "POST", json: { type: "question", message: "How do scopes work?" } });
    expect(response.status).toBe(201);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ object: "feedback", type: "question", message: "How do scopes work?", meeting_id: null, status: "received" });
    expect(body.id).toMatch(/^fb_\d+$/);
  });

  test("GET /v1/jobs needs no scope", async () => {
    const response = await server.api("/api/v1/jobs", { key: usageOnlyKey });
    expect(response.status).toBe(200);
  });
});

describe("another account's resource answers 404, never 403", () => {
  const meetingId = crypto.randomUUID().toLowerCase();
  const jobId = randomId("job");

  beforeAll(async () => {
    const now = Date.now();
    await onDatabase(server, async (q) => {
      await q.insert(meetings).values({ id: meetingId, userId: userA.id, title: "Board meeting", status: "completed", createdAt: now, updatedAt: now });
      await q
        .insert(jobs)
        .values({ id: jobId, userId: userA.id, kind: "meeting_processing", status: "completed", stage: "done", progress: 1, channel: "api", meetingId, createdAt: now });
    });
  });

  test("feedback about another account's meeting → 404 not_found", async () => {
    const response = await server.api("/api/v1/feedback", { key: keyB, method: "POST", json: { type: "bug", message: "wrong speaker", meeting_id: meetingId } });
    const body = await expectProblem(response, 404, "not_found");
    expect(body.detail).toContain(meetingId);
  });

  test("the same with a key lacking every meeting scope is still 404, not 403", async () => {
    const response = await server.api("/api/v1/feedback", { key: usageOnlyKey, method: "POST", json: { message: "x", meeting_id: meetingId } });
    await expectProblem(response, 404, "not_found");
  });

  test("a meeting that does not exist → 404 too", async () => {
    const response = await server.api("/api/v1/feedback", { key: keyA, method: "POST", json: { message: "x", meeting_id: crypto.randomUUID() } });
    await expectProblem(response, 404, "not_found");
  });

  test("the owner's feedback about the meeting → 201 with meeting_id echoed", async () => {
    const response = await server.api("/api/v1/feedback", { key: keyA, method: "POST", json: { type: "bug", message: "wrong speaker", meeting_id: meetingId } });
    expect(response.status).toBe(201);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ object: "feedback", type: "bug", meeting_id: meetingId, message: "wrong speaker" });
  });

  test("the owner may write the meeting id in upper case; it is stored lower case", async () => {
    const response = await server.api("/api/v1/feedback", { key: keyA, method: "POST", json: { message: "upper", meeting_id: meetingId.toUpperCase() } });
    expect(response.status).toBe(201);
    expect(((await response.json()) as any).meeting_id).toBe(meetingId);
  });

  test("a meeting_id that is not a uuid → 400 validation_error on meeting_id", async () => {
    const response = await server.api("/api/v1/feedback", { key: keyA, method: "POST", json: { message: "x", meeting_id: "mtg_1" } });
    const body = await expectProblem(response, 400, "validation_error");
    expect((body.errors as any[]).map((e) => e.field)).toEqual(["meeting_id"]);
  });

  test("another account's job → 404 not_found; the owner's → 200", async () => {
    const other = await server.api(`/api/v1/jobs/${jobId}`, { key: keyB });
    const body = await expectProblem(other, 404, "not_found");
    expect(body.detail).toContain(jobId);
    const own = await server.api(`/api/v1/jobs/${jobId}`, { key: keyA });
    expect(own.status).toBe(200);
    expect(((await own.json()) as any).id).toBe(jobId);
    const list = (await (await server.api("/api/v1/jobs", { key: keyB })).json()) as any;
    expect(list.data.map((j: any) => j.id)).not.toContain(jobId);
  });
});

describe("clients belong to their account", () => {
  beforeAll(async () => {
    await onDatabase(server, async (q) => {
      await createClient(q, userA.id, { name: "Société Générale", email: "contact@sg.example" });
      await createClient(q, userA.id, { name: "Acme Corp" });
      await createClient(q, userA.id, { name: "Zeta Archives", isArchived: true });
      await createClient(q, userB.id, { name: "Société Civile Immobilière" });
      await createClient(q, userB.id, { name: "Bob's Bakery" });
    });
  });

  async function names(key: string, query = "") {
    const response = await server.api(`/api/v1/clients${query}`, { key });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    return (body.data as any[]).map((c) => c.name);
  }

  test("each account sees only its own clients, archived ones hidden", async () => {
    expect(await names(keyA)).toEqual(["Acme Corp", "Société Générale"]);
    expect(await names(keyB)).toEqual(["Bob's Bakery", "Société Civile Immobilière"]);
  });

  test("the client object has the documented shape", async () => {
    const body = (await (await server.api("/api/v1/clients?q=acme", { key: keyA })).json()) as any;
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toEqual({ id: expect.stringMatching(/^cli_\d+$/), object: "client", name: "Acme Corp", email: null, phone: null, is_archived: false, legal_hold: false });
  });

  test("q is a case-insensitive substring match, non-ASCII included", async () => {
    expect(await names(keyA, `?q=${encodeURIComponent("société")}`)).toEqual(["Société Générale"]);
    expect(await names(keyA, `?q=${encodeURIComponent("SOCIÉTÉ")}`)).toEqual(["Société Générale"]);
    expect(await names(keyA, `?q=${encodeURIComponent("générale")}`)).toEqual(["Société Générale"]);
    expect(await names(keyA, "?q=CORP")).toEqual(["Acme Corp"]);
    expect(await names(keyA, "?q=nothing-like-this")).toEqual([]);
    // The same search from the other account finds only its own.
    expect(await names(keyB, `?q=${encodeURIComponent("société")}`)).toEqual(["Société Civile Immobilière"]);
  });

  test("include_archived=true shows archived clients; false hides them", async () => {
    expect(await names(keyA, "?include_archived=true")).toEqual(["Acme Corp", "Société Générale", "Zeta Archives"]);
    expect(await names(keyA, "?include_archived=false")).toEqual(["Acme Corp", "Société Générale"]);
    expect(await names(keyA, "?include_archived=true&q=archives")).toEqual(["Zeta Archives"]);
    expect(await names(keyB, "?include_archived=true")).toEqual(["Bob's Bakery", "Société Civile Immobilière"]);
  });

  test("include_archived=maybe → 400 validation_error naming include_archived", async () => {
    const body = await expectProblem(await server.api("/api/v1/clients?include_archived=maybe", { key: keyA }), 400, "validation_error");
    const errors = body.errors as any[];
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe("include_archived");
    expect(typeof errors[0].message).toBe("string");
  });
});
