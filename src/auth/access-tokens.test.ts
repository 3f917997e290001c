import { describe, expect, test } from "bun:test";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from "jose";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEgressAllow } from "../net/egress.ts";
import { AccessTokens, identifyOwnToken, TokenRejected, type OAuthSettings } from "./access-tokens.ts";
import { loadOrCreateSigningKey } from "./signing-key.ts";

const dataDir = mkdtempSync(join(tmpdir(), "verbatim-tokens-"));
const key = await loadOrCreateSigningKey(dataDir);
rmSync(dataDir, { recursive: true, force: true });

const ISSUER = "https://idp.test";
const SETTINGS: OAuthSettings = {
  localIssuer: "verbatim-local",
  audience: "verbatim-api",
  maxLocalTtlSeconds: 3600,
  external: { issuer: ISSUER, jwksUrl: "https://idp.test/jwks" },
};

const rsa = await generateKeyPair("RS256");
const ec = await generateKeyPair("ES256");
const JWKS = { keys: [{ ...(await exportJWK(rsa.publicKey)), kid: "rsa" }, { ...(await exportJWK(ec.publicKey)), kid: "ec" }] };
const servedJwks = async () => Response.json(JWKS);

function idp(claims: JWTPayload, header: { alg: string; kid: string; typ?: string }, signer: CryptoKey, exp = true) {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ scope: "read:meetings", email: "a@example.com", email_verified: true, ...claims })
    .setProtectedHeader(header)
    .setIssuer(ISSUER)
    .setAudience("verbatim-api")
    .setSubject("idp-sub")
    .setIssuedAt(now);
  return (exp ? jwt.setExpirationTime(now + 300) : jwt).sign(signer);
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TokenRejected);
    return (error as Error).message;
  }
  throw new Error("expected a rejection");
}

describe("tokens of the identity provider", () => {
  const tokens = new AccessTokens(SETTINGS, key, { fetchJwks: servedJwks });

  test("RSA keys take RS*/PS*, EC P-256 keys ES256; crossing them finds no key", async () => {
    const verified = await tokens.verify(await idp({}, { alg: "RS256", kid: "rsa" }, rsa.privateKey));
    expect(verified).toMatchObject({ local: false, subject: "idp-sub", email: "a@example.com", emailVerified: true });
    const ps = await generateKeyPair("PS256");
    const psRsaKey = await exportJWK(ps.publicKey);
    const withPs = new AccessTokens(SETTINGS, key, { fetchJwks: async () => Response.json({ keys: [{ ...psRsaKey, kid: "rsa" }] }) });
    expect((await withPs.verify(await idp({}, { alg: "PS256", kid: "rsa" }, ps.privateKey))).subject).toBe("idp-sub");
    expect((await tokens.verify(await idp({}, { alg: "ES256", kid: "ec" }, ec.privateKey))).subject).toBe("idp-sub");
    expect(await rejection(tokens.verify(await idp({}, { alg: "ES256", kid: "rsa" }, ec.privateKey)))).toContain("No key of the identity provider matches");
    expect(await rejection(tokens.verify(await idp({}, { alg: "RS256", kid: "ec" }, rsa.privateKey)))).toContain("No key of the identity provider matches");
  });

  test("HS256 keyed with the public JWK (algorithm confusion) is refused", async () => {
    const hmac = await new SignJWT({ scope: "read:meetings" })
      .setProtectedHeader({ alg: "HS256", kid: "rsa" })
      .setIssuer(ISSUER)
      .setAudience("verbatim-api")
      .setSubject("idp-sub")
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(JSON.stringify(JWKS.keys[0])));
    expect(await rejection(tokens.verify(hmac))).toContain("algorithm is not accepted");
  });

  test("exp and sub are required", async () => {
    expect(await rejection(tokens.verify(await idp({}, { alg: "RS256", kid: "rsa" }, rsa.privateKey, false)))).toBe("The access token has no exp claim.");
    const noSub = await new SignJWT({ scope: "read:meetings" })
      .setProtectedHeader({ alg: "RS256", kid: "rsa" })
      .setIssuer(ISSUER)
      .setAudience("verbatim-api")
      .setExpirationTime("5m")
      .sign(rsa.privateKey);
    expect(await rejection(tokens.verify(noSub))).toBe("The access token has no sub claim.");
  });

  test("an ID token is refused", async () => {
    expect(await rejection(tokens.verify(await idp({ nonce: "abc" }, { alg: "RS256", kid: "rsa", typ: "JWT" }, rsa.privateKey)))).toContain("ID token");
  });

  test("email_verified counts only when it is exactly true", async () => {
    for (const value of ["true", 1, false]) {
      expect((await tokens.verify(await idp({ email_verified: value }, { alg: "RS256", kid: "rsa" }, rsa.privateKey))).emailVerified).toBe(false);
    }
  });

  test("the JWKS is fetched through the egress guard: a name resolving to an internal address is never contacted", async () => {
    const logged: Error[] = [];
    const lookups: string[] = [];
    const guarded = new AccessTokens(SETTINGS, key, {
      egress: parseEgressAllow("10.0.0.0/8"),
      resolve: async (host) => {
        lookups.push(host);
        return ["127.0.0.1"];
      },
      log: (error) => logged.push(error),
    });
    const message = await rejection(guarded.verify(await idp({}, { alg: "RS256", kid: "rsa" }, rsa.privateKey)));
    expect(message).toBe("The identity provider's signing keys could not be fetched, so the access token cannot be verified.");
    expect(lookups).toEqual(["idp.test"]);
    expect(logged[0]?.message).toContain("EgressRefused");
  });
});

describe("tokens this service mints", () => {
  const tokens = new AccessTokens(SETTINGS, key);

  test("mint refuses a lifetime above the maximum; what it mints verifies and names its jti", async () => {
    await expect(tokens.mint({ subject: "usr_1", email: "a@example.com", scopes: [], ttlSeconds: 3601 })).rejects.toThrow(RangeError);
    const minted = await tokens.mint({ subject: "usr_1", email: "a@example.com", scopes: ["read:meetings"], ttlSeconds: 3600 });
    const verified = await tokens.verify(minted.token);
    expect(verified).toMatchObject({ local: true, subject: "usr_1", tokenId: minted.jti, expiresAt: minted.expiresAt, emailVerified: false });
    expect(await identifyOwnToken(minted.token, key, "verbatim-local")).toEqual({ jti: minted.jti, expiresAt: minted.expiresAt });
  });

  test("a lower maximum at verification refuses a token minted under a higher one", async () => {
    const minted = await tokens.mint({ subject: "usr_1", email: "a@example.com", scopes: [], ttlSeconds: 3600 });
    const strict = new AccessTokens({ ...SETTINGS, maxLocalTtlSeconds: 600 }, key);
    expect(await rejection(strict.verify(minted.token))).toContain("lives longer than this service allows (600 s)");
  });

  test("typ must be at+jwt, and exp, iat and jti must be present", async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = () =>
      new SignJWT({ scope: "read:meetings" }).setIssuer("verbatim-local").setAudience("verbatim-api").setSubject("usr_1");
    const header = { alg: "ES256", kid: key.kid, typ: "at+jwt" };
    expect(await rejection(tokens.verify(await base().setProtectedHeader({ ...header, typ: "JWT" }).setIssuedAt(now).setJti("j").setExpirationTime(now + 60).sign(key.privateKey)))).toContain("typ");
    expect(await rejection(tokens.verify(await base().setProtectedHeader(header).setIssuedAt(now).setJti("j").sign(key.privateKey)))).toContain("no exp claim");
    expect(await rejection(tokens.verify(await base().setProtectedHeader(header).setJti("j").setExpirationTime(now + 60).sign(key.privateKey)))).toContain("no iat claim");
    expect(await rejection(tokens.verify(await base().setProtectedHeader(header).setIssuedAt(now).setExpirationTime(now + 60).sign(key.privateKey)))).toContain("no jti claim");
    expect(await rejection(tokens.verify(await base().setProtectedHeader(header).setIssuedAt(now + 600).setJti("j").setExpirationTime(now + 700).sign(key.privateKey)))).toContain("future");
  });
});
