import {
  SignJWT,
  createRemoteJWKSet,
  decodeJwt,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import { isScope, type Scope } from "./scopes.ts";
import { SIGNING_ALGORITHM, type SigningKey } from "./signing-key.ts";

export interface OAuthSettings {
  /** `iss` of tokens the service mints itself. */
  localIssuer: string;
  /** `aud` every accepted token must carry. */
  audience: string;
  /** A firm's identity provider, whose tokens are verified against its JWKS. */
  external?: { issuer: string; jwksUrl: string };
}

export interface VerifiedToken {
  issuer: string;
  /** Minted by this service (its sub is a user id), not by the firm's IdP (whose sub is its own). */
  local: boolean;
  subject: string | undefined;
  email: string | undefined;
  clientId: string | undefined;
  scopes: Scope[];
  tokenId: string | undefined;
  expiresAt: number | undefined;
}

export class TokenRejected extends Error {}

/** OAuth 2.1 access tokens: minted locally, or issued by the firm's IdP and checked via JWKS. */
export class AccessTokens {
  private readonly externalKeys?: JWTVerifyGetKey;

  constructor(
    private readonly settings: OAuthSettings,
    private readonly key: SigningKey,
  ) {
    if (settings.external) {
      this.externalKeys = createRemoteJWKSet(new URL(settings.external.jwksUrl), {
        timeoutDuration: 5000,
        cooldownDuration: 30_000,
      });
    }
  }

  async mint(input: { subject: string; email: string; scopes: Scope[]; ttlSeconds: number; clientId?: string }): Promise<string> {
    return new SignJWT({ email: input.email, scope: input.scopes.join(" "), client_id: input.clientId ?? "verbatim-cli" })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: this.key.kid, typ: "at+jwt" })
      .setIssuer(this.settings.localIssuer)
      .setAudience(this.settings.audience)
      .setSubject(input.subject)
      .setIssuedAt()
      .setJti(crypto.randomUUID())
      .setExpirationTime(`${input.ttlSeconds}s`)
      .sign(this.key.privateKey);
  }

  async verify(token: string): Promise<VerifiedToken> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw new TokenRejected("The bearer token is neither an API key nor a well-formed JWT.");
    }
    const external = this.settings.external;
    const useExternal = external !== undefined && unverified.iss === external.issuer;
    if (!useExternal && unverified.iss !== this.settings.localIssuer) {
      throw new TokenRejected("The access token's issuer is not trusted by this service.");
    }
    try {
      const options = {
        issuer: useExternal ? external!.issuer : this.settings.localIssuer,
        audience: this.settings.audience,
        clockTolerance: 5,
      };
      const { payload } = useExternal
        ? await jwtVerify(token, this.externalKeys!, options)
        : await jwtVerify(token, this.key.publicKey, { ...options, algorithms: [SIGNING_ALGORITHM] });
      return {
        issuer: payload.iss!,
        local: !useExternal,
        subject: payload.sub,
        email: typeof payload.email === "string" ? payload.email : undefined,
        clientId: stringClaim(payload.client_id) ?? stringClaim(payload.azp),
        scopes: scopesOf(payload),
        tokenId: payload.jti,
        expiresAt: payload.exp,
      };
    } catch (error) {
      throw new TokenRejected(describe(error));
    }
  }
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** `scope` (space-separated, RFC 9068) or `scp` (array, some IdPs); unknown names are ignored. */
function scopesOf(payload: JWTPayload): Scope[] {
  const raw = typeof payload.scope === "string" ? payload.scope.split(" ") : Array.isArray(payload.scp) ? payload.scp : [];
  return [...new Set(raw.filter((s): s is Scope => typeof s === "string" && isScope(s)))];
}

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return "The access token has expired.";
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return "The access token is not meant for this service (wrong audience).";
    return `The access token's ${error.claim} claim is not valid.`;
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "The access token's signature does not verify.";
  if (error instanceof joseErrors.JWKSNoMatchingKey) return "No key of the identity provider matches the access token.";
  if (error instanceof joseErrors.JOSEError) return `The access token was rejected (${error.code}).`;
  return "The access token could not be verified.";
}
