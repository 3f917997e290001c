import { expect, test } from "bun:test";
import { isCodeChallenge, newSecret, s256, secretHash, verifierMatches } from "./pkce.ts";

test("S256 follows RFC 7636 appendix B's example", () => {
  expect(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  expect(isCodeChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")).toBe(true);
});

test("a verifier answers its challenge only; short, long or odd verifiers never do", () => {
  const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const challenge = s256(verifier);
  expect(verifierMatches(verifier, challenge)).toBe(true);
  expect(verifierMatches(`${verifier}x`, challenge)).toBe(false);
  expect(verifierMatches("short", s256("short"))).toBe(false);
  expect(verifierMatches("a".repeat(129), s256("a".repeat(129)))).toBe(false);
  expect(verifierMatches(`${"a".repeat(42)} `, s256(`${"a".repeat(42)} `))).toBe(false);
  // The plain method is not supported: the verifier itself is not its challenge.
  expect(verifierMatches(verifier, verifier)).toBe(false);
});

test("challenges are 43 base64url characters, nothing else", () => {
  for (const bad of ["", "a".repeat(42), "a".repeat(44), `${"a".repeat(42)}=`, `${"a".repeat(42)}+`]) expect(isCodeChallenge(bad)).toBe(false);
});

test("secrets are 256-bit base64url and distinct; their hashes are SHA-256 hex", () => {
  const a = newSecret();
  expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(newSecret()).not.toBe(a);
  expect(secretHash("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});
