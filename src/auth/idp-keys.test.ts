import { describe, expect, test } from "bun:test";
import { parseEgressAllow } from "../net/egress.ts";
import { isIdpAlgorithm, jwksUrlRefusal } from "./idp-keys.ts";

describe("isIdpAlgorithm", () => {
  test("asymmetric signatures only", () => {
    for (const alg of ["RS256", "PS512", "ES256", "ES384", "EdDSA", "Ed25519"]) expect(isIdpAlgorithm(alg)).toBe(true);
    for (const alg of ["none", "HS256", "HS512", "dir", "RSA-OAEP", "", undefined, 1]) expect(isIdpAlgorithm(alg)).toBe(false);
  });
});

describe("jwksUrlRefusal", () => {
  const policy = parseEgressAllow("10.0.0.0/8,idp.internal");

  test("https is accepted, whatever the host (the guard checks its addresses when fetching)", () => {
    expect(jwksUrlRefusal("https://login.example.com/.well-known/jwks.json", policy)).toBeUndefined();
    expect(jwksUrlRefusal("https://127.0.0.1/jwks", parseEgressAllow(""))).toBeUndefined();
  });

  test("http only to a host the allowlist names, or an IP literal inside an allowed CIDR", () => {
    expect(jwksUrlRefusal("http://idp.internal/jwks", policy)).toBeUndefined();
    expect(jwksUrlRefusal("http://IDP.INTERNAL./jwks", policy)).toBeUndefined();
    expect(jwksUrlRefusal("http://10.1.2.3:8080/jwks", policy)).toBeUndefined();
    expect(jwksUrlRefusal("http://login.example.com/jwks", policy)).toContain("must be an https URL");
    expect(jwksUrlRefusal("http://192.168.1.1/jwks", policy)).toContain("must be an https URL");
    // A name inside an allowed CIDR needs DNS to tell: list it by name or use https.
    expect(jwksUrlRefusal("http://keys.corp/jwks", policy)).toContain("must be an https URL");
  });

  test("other schemes, credentials and non-URLs are refused", () => {
    expect(jwksUrlRefusal("file:///etc/jwks.json", policy)).toContain("https");
    expect(jwksUrlRefusal("https://user:pw@login.example.com/jwks", policy)).toContain("credentials");
    expect(jwksUrlRefusal("not a url", policy)).toBe("is not a URL");
  });
});
