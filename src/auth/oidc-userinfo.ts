/**
 * The provider's UserInfo endpoint (OpenID Connect Core 5.3). In the code flow a provider may
 * keep the claims asked for by scope (`email`, `email_verified`) out of the ID token and serve
 * them only here (Core 5.4; panva's oidc-provider does so by default), so the sign-in asks for
 * them when the ID token carries no email.
 *
 * The request goes through the egress guard with the access token as a Bearer credential, no
 * redirect followed (a redirect would carry the token elsewhere), bounded in size and time. The
 * answer is believed only for the person the ID token names: its `sub` must be the ID token's
 * (Core 5.3.2: otherwise another person's claims could be substituted). A JSON answer comes over
 * the TLS connection from the endpoint the discovery document named; a signed JWT answer
 * (`application/jwt`) is verified like the ID token (the provider's keys, the same algorithms,
 * and its `iss` and `aud` when present); an encrypted one is refused: Verbatim registers no
 * encryption key with the provider.
 */
import { jwtVerify, type JWTVerifyGetKey } from "jose";
import { answerObject, readProviderAnswer, type ProviderFetch } from "./oidc-answer.ts";
import { IDP_ALGORITHMS } from "./idp-keys.ts";
import { SsoRefused } from "./sso-refused.ts";

export interface UserInfoRequest {
  endpoint: string;
  accessToken: string;
  /** The ID token's `sub`: the UserInfo answer must name the same person. */
  subject: string;
  issuer: string;
  clientId: string;
  keys: JWTVerifyGetKey;
}

const WHAT = "UserInfo endpoint";
/** RFC 6750 b64token, bounded: nothing that could end the header line or fill it. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_ACCESS_TOKEN_CHARS = 16 * 1024;

/** The claims the provider's UserInfo endpoint gives for the signed-in person. */
export async function fetchUserInfo(fetch: ProviderFetch, request: UserInfoRequest): Promise<Record<string, unknown>> {
  if (request.accessToken.length > MAX_ACCESS_TOKEN_CHARS || !BEARER_TOKEN.test(request.accessToken)) {
    throw new SsoRefused("The identity provider's access token is not a Bearer token Verbatim can send.");
  }
  const answer = await readProviderAnswer(
    fetch,
    request.endpoint,
    { method: "GET", headers: { authorization: `Bearer ${request.accessToken}`, accept: "application/json, application/jwt" } },
    WHAT,
  );
  let claims: Record<string, unknown>;
  if (answer.mediaType === "application/jwt") claims = await verifiedUserInfoJwt(answer.text.trim(), request);
  else if (answer.mediaType === "application/json") claims = answerObject(answer, WHAT);
  else throw new SsoRefused(`The identity provider's ${WHAT} answered neither JSON nor a signed JWT.`);
  if (claims.sub !== request.subject) {
    throw new SsoRefused("The identity provider's UserInfo answer is about another person than its ID token (sub).");
  }
  return claims;
}

async function verifiedUserInfoJwt(jwt: string, request: UserInfoRequest): Promise<Record<string, unknown>> {
  if (jwt.split(".").length === 5) {
    throw new SsoRefused("The identity provider's UserInfo answer is encrypted, which Verbatim does not support: have the provider sign it, or answer JSON.");
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(jwt, request.keys, { algorithms: [...IDP_ALGORITHMS], clockTolerance: 60 }));
  } catch (error) {
    throw new SsoRefused(`The identity provider's signed UserInfo answer is not valid (${(error as Error).message.slice(0, 200)}).`);
  }
  // Core 5.3.2: a signed answer SHOULD carry iss and aud; when it does they must be ours.
  if (payload.iss !== undefined && payload.iss !== request.issuer) {
    throw new SsoRefused("The identity provider's signed UserInfo answer names another issuer.");
  }
  const audience = payload.aud;
  if (audience !== undefined && !(audience === request.clientId || (Array.isArray(audience) && audience.includes(request.clientId)))) {
    throw new SsoRefused("The identity provider's signed UserInfo answer was made for another client (aud).");
  }
  return payload;
}
