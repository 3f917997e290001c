import { sameSecret } from "../lib/same-secret.ts";

/** RFC 7636: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** BASE64URL(SHA-256(...)) without padding: always 43 characters. */
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export function isCodeChallenge(value: string): boolean {
  return CHALLENGE.test(value);
}

/** The S256 challenge of a verifier: BASE64URL(SHA-256(ASCII(verifier))). */
export function s256(verifier: string): string {
  return new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
}

/** Whether the verifier answers the challenge (S256 only), compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return sameSecret(s256(verifier), challenge);
}

/** The SHA-256 of a code or refresh token, as stored (the token itself never is). */
export function secretHash(secret: string): string {
  return new Bun.CryptoHasher("sha256").update(secret).digest("hex");
}

/** A fresh code or refresh token: 256 random bits, base64url. */
export function newSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}
