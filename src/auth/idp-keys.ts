/**
 * The signing keys of the firm's identity provider: its JWKS, fetched through the egress guard,
 * and the algorithms its tokens may use.
 */
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from "jose";
import { parseIP } from "../net/addresses.ts";
import { isAddressAllowed, isHostAllowed, type EgressPolicy, type Resolver } from "../net/egress.ts";
import { guardedFetch } from "../net/egress-fetch.ts";

/**
 * Asymmetric signature algorithms only: never `none`, never HS* (an HMAC "signed" with the
 * IdP's public key is the classic algorithm-confusion forgery). Which of these a token may use is
 * decided by the key its kid names: jose's key-set lookup keeps only keys whose type fits the
 * token's alg (RS and PS: RSA; ES256: EC P-256, ES384: P-384, ES512: P-521; EdDSA / Ed25519:
 * OKP Ed25519) and whose own `alg`, when the JWKS gives one, is that alg. A token whose alg does
 * not fit its key's type therefore finds no key and is refused.
 */
export const IDP_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

const ACCEPTED = new Set<string>(IDP_ALGORITHMS);

export function isIdpAlgorithm(alg: unknown): boolean {
  return typeof alg === "string" && ACCEPTED.has(alg);
}

/** A fetch jose can call: the egress-guarded one in the service, a test double in unit tests. */
export type JwksFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface IdpKeyOptions {
  /** The egress allowlist the JWKS URL is checked against, hop by hop, before connecting. */
  egress: EgressPolicy;
  /** Host name resolver for the guard (tests); the system resolver otherwise. */
  resolve?: Resolver;
  /** Replaces the guarded fetch entirely (unit tests only). */
  fetch?: JwksFetch;
}

/**
 * The JWKS as jose's key lookup, every fetch going through the egress guard: the URL's host is
 * resolved once, each address checked (public, or allowlisted), and the connection made to the
 * checked address. An internal address not on the allowlist is never contacted.
 */
export function idpKeySet(jwksUrl: string, options: IdpKeyOptions): JWTVerifyGetKey {
  const fetchImpl = options.fetch ?? guardedFetch(options.egress, options.resolve);
  return createRemoteJWKSet(new URL(jwksUrl), {
    timeoutDuration: 5000,
    cooldownDuration: 30_000,
    [customFetch]: fetchImpl,
  });
}

/**
 * Why a JWKS URL is refused at start, or undefined if it is acceptable: https, or http only to a
 * host the egress allowlist names (by name, or an IP literal inside an allowed CIDR), as the egress
 * guard itself allows. A name covered only by an allowed CIDR needs DNS to tell, so it must use
 * https or be listed by name. No credentials in the URL.
 */
export function jwksUrlRefusal(jwksUrl: string, egress: EgressPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(jwksUrl);
  } catch {
    return "is not a URL";
  }
  if (url.username !== "" || url.password !== "") return "must not contain credentials (user:password@)";
  if (url.protocol === "https:") return undefined;
  if (url.protocol !== "http:") return "must be an https URL";
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const literal = parseIP(host);
  const internal = literal ? isAddressAllowed(egress, literal) : isHostAllowed(egress, host);
  if (!internal) return "must be an https URL (http only for a host listed in --egress-allow)";
  return undefined;
}
