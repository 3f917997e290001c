import type { JWTPayload, ProtectedHeaderParameters } from "jose";

/**
 * Why an identity provider's token is taken for something other than an access token (an
 * OpenID Connect ID token, above all), or undefined when it is accepted as an access token.
 *
 * An ID token proves to one client who signed in; it is not a credential for an API. If the
 * firm's portal is registered at the IdP with this service's audience as its client id, its users'
 * ID tokens would carry the right `aud`, so `aud` alone does not tell them apart.
 *
 * The rule:
 * - `typ` `at+jwt` (or `application/at+jwt`, RFC 9068): an access token; accepted.
 * - `typ` absent or `JWT`: many IdPs (Entra ID, Okta, Auth0, Keycloak) put `JWT` on their access
 *   tokens as on their ID tokens, so the claims decide: a token carrying `nonce`, `at_hash` or
 *   `c_hash` (claims only ID tokens have), or carrying no `scope` / `scp` claim at all (access
 *   tokens say what they grant; ID tokens never do), is refused as an ID token.
 * - any other `typ` (`id_token+jwt`, `logout+jwt`, `secevent+jwt`, `dpop+jwt`, ...): refused.
 */
export function notAnAccessTokenReason(header: ProtectedHeaderParameters, payload: JWTPayload): string | undefined {
  const typ = typeof header.typ === "string" ? header.typ.toLowerCase().replace(/^application\//, "") : undefined;
  if (typ === "at+jwt") return undefined;
  if (typ !== undefined && typ !== "jwt") {
    return `The token's type (typ ${JSON.stringify(header.typ)}) is not an access token; send an access token (typ at+jwt).`;
  }
  const idTokenClaim = ["nonce", "at_hash", "c_hash"].find((claim) => Object.hasOwn(payload, claim));
  if (idTokenClaim) {
    return `The token is an ID token (it carries ${idTokenClaim}), not an access token; send the identity provider's access token.`;
  }
  if (!Object.hasOwn(payload, "scope") && !Object.hasOwn(payload, "scp")) {
    return "The token carries no scope or scp claim, as ID tokens do; send the identity provider's access token.";
  }
  return undefined;
}
