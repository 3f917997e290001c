import { z } from "zod";
import {
  SignJWT,
  compactVerify,
  decodeJwt,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import { emptyEgressPolicy, type EgressPolicy, type Resolver } from "../net/egress.ts";
import { notAnAccessTokenReason } from "./id-token.ts";
import { IDP_ALGORITHMS, idpKeySet, type JwksFetch } from "./idp-keys.ts";
import { isScope, type Scope } from "./scopes.ts";
import { SIGNING_ALGORITHM, type SigningKey } from "./signing-key.ts";

export interface OAuthSettings {
  /** `iss` of tokens the service mints itself. */
  localIssuer: string;
  /** `aud` every accepted token must carry. */
  audience: string;
  /**
   * Longest lifetime (exp − iat, seconds) of a token the service mints, and of one it accepts from
   * itself: a revocation kept that long after it is made therefore outlives the token it revokes.
   */
  maxLocalTtlSeconds: number;
  /** A firm's identity provider, whose tokens are verified against its JWKS. */
  external?: { issuer: string; jwksUrl: string };
}

export interface AccessTokenOptions {
  /** The egress allowlist the JWKS is fetched under (the service's --egress-allow). */
  egress?: EgressPolicy;
  /** Host name resolver for the egress guard (tests). */
  resolve?: Resolver;
  /**
   * The other audiences the service's own tokens may carry: the resources (RFC 8707) its OAuth
   * authorization server binds tokens to (oauth/app.ts); read at each verification (the public
   * URL is known once listening).
   */
  resources?: () => readonly string[];
  /** Replaces the guarded JWKS fetch (unit tests only). */
  fetchJwks?: JwksFetch;
  /** Where the raw reason a JWKS could not be fetched goes (the server log), never the client. */
  log?: (error: Error) => void;
}

export interface VerifiedToken {
  issuer: string;
  /** Minted by this service (its sub is a user id), not by the firm's IdP (whose sub is its own). */
  local: boolean;
  /** Always present: both kinds of token must carry sub. */
  subject: string;
  email: string | undefined;
  /** The IdP vouches for the email (`email_verified` is exactly true); never set on local tokens. */
  emailVerified: boolean;
  clientId: string | undefined;
  scopes: Scope[];
  tokenId: string | undefined;
  expiresAt: number | undefined;
  /** The grant of the service's OAuth authorization server the token was minted for (its `grant_id` claim). */
  grantId: string | undefined;
  /** The token's audience (the resource it was bound to). */
  audience: string | undefined;
}

export class TokenRejected extends Error {}

/** The JWKS could not be had (refused by the egress guard, unreachable, not a JWKS). */
class KeysUnavailable extends Error {}

/** What `admin token revoke` needs of a token: its id and its expiry (unix seconds). */
export interface OwnTokenIdentity {
  jti: string;
  expiresAt: number;
}

// Seconds of clock difference tolerated between this host and the token's issuer.
const CLOCK_TOLERANCE = 5;

/** OAuth 2.1 access tokens: minted locally, or issued by the firm's IdP and checked via JWKS. */
export class AccessTokens {
  private readonly externalKeys?: JWTVerifyGetKey;

  constructor(
    private readonly settings: OAuthSettings,
    private readonly key: SigningKey,
    private readonly options: AccessTokenOptions = {},
  ) {
    if (settings.external) {
      const keys = idpKeySet(settings.external.jwksUrl, {
        egress: options.egress ?? emptyEgressPolicy(),
        resolve: options.resolve,
        fetch: options.fetchJwks,
      });
      // jose's own refusals (no key of that kid and type) stay jose errors; anything else means
      // the key set itself could not be had, which the client hears in its own terms only.
      this.externalKeys = async (header, token) => {
        try {
          return await keys(header, token);
        } catch (error) {
          if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) throw error;
          const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          throw new KeysUnavailable(`JWKS ${settings.external!.jwksUrl} could not be used: ${reason}`, { cause: error });
        }
      };
    }
  }

  async mint(input: { subject: string; email: string; scopes: Scope[]; ttlSeconds: number; clientId?: string; audience?: string; grantId?: string }): Promise<{
    token: string;
    jti: string;
    expiresAt: number;
  }> {
    if (!(input.ttlSeconds >= 1 && input.ttlSeconds <= this.settings.maxLocalTtlSeconds)) {
      throw new RangeError(`token lifetime must be 1 to ${this.settings.maxLocalTtlSeconds} seconds`);
    }
    const jti = crypto.randomUUID();
    const issuedAt = Math.floor(Date.now() / 1000);
    const expiresAt = issuedAt + input.ttlSeconds;
    const claims = { email: input.email, scope: input.scopes.join(" "), client_id: input.clientId ?? "verbatim-cli", ...(input.grantId ? { grant_id: input.grantId } : {}) };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: this.key.kid, typ: "at+jwt" })
      .setIssuer(this.settings.localIssuer)
      .setAudience(input.audience ?? this.settings.audience)
      .setSubject(input.subject)
      .setIssuedAt(issuedAt)
      .setJti(jti)
      .setExpirationTime(expiresAt)
      .sign(this.key.privateKey);
    return { token, jti, expiresAt };
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
      const payload = useExternal ? await this.verifyExternal(token, external!.issuer) : await this.verifyLocal(token);
      return {
        issuer: payload.iss!,
        local: !useExternal,
        subject: payload.sub!,
        email: typeof payload.email === "string" ? payload.email : undefined,
        emailVerified: useExternal && payload.email_verified === true,
        clientId: stringClaim(payload.client_id) ?? stringClaim(payload.azp),
        scopes: scopesOf(payload),
        tokenId: payload.jti,
        expiresAt: payload.exp,
        grantId: useExternal ? undefined : stringClaim(payload.grant_id),
        audience: typeof payload.aud === "string" ? payload.aud : undefined,
      };
    } catch (error) {
      if (error instanceof TokenRejected) throw error;
      if (error instanceof KeysUnavailable) {
        this.options.log?.(error);
        throw new TokenRejected("The identity provider's signing keys could not be fetched, so the access token cannot be verified.");
      }
      throw new TokenRejected(describe(error));
    }
  }

  /**
   * The service's own tokens: its one key and algorithm, typ at+jwt, and exp, iat, jti and sub
   * present (every token `admin token create` ever minted has them). A lifetime above the maximum
   * is refused, so a jti revoked without its expiry (kept for the maximum) stays refused.
   */
  private async verifyLocal(token: string): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, this.key.publicKey, {
      issuer: this.settings.localIssuer,
      audience: [this.settings.audience, ...(this.options.resources?.() ?? [])],
      clockTolerance: CLOCK_TOLERANCE,
      algorithms: [SIGNING_ALGORITHM],
      typ: "at+jwt",
      requiredClaims: ["exp", "iat", "jti", "sub"],
    });
    const now = Math.floor(Date.now() / 1000);
    if (payload.iat! > now + CLOCK_TOLERANCE) throw new TokenRejected("The access token's iat claim lies in the future.");
    if (payload.exp! - payload.iat! > this.settings.maxLocalTtlSeconds) {
      throw new TokenRejected(`The access token lives longer than this service allows (${this.settings.maxLocalTtlSeconds} s).`);
    }
    return payload;
  }

  /**
   * The IdP's tokens: an asymmetric algorithm that fits the type of the JWKS key its kid names,
   * exp and sub present, and an access token, not an ID token.
   */
  private async verifyExternal(token: string, issuer: string): Promise<JWTPayload> {
    const { payload, protectedHeader } = await jwtVerify(token, this.externalKeys!, {
      issuer,
      audience: this.settings.audience,
      clockTolerance: CLOCK_TOLERANCE,
      algorithms: [...IDP_ALGORITHMS],
      requiredClaims: ["exp", "sub"],
    });
    const notAccess = notAnAccessTokenReason(protectedHeader, payload);
    if (notAccess) throw new TokenRejected(notAccess);
    return payload;
  }
}

/** The claims revocation reads from a token this service signed (checked below, one by one). */
const ownTokenClaims = z.looseObject({ iss: z.unknown(), jti: z.unknown(), exp: z.unknown() });

/**
 * The jti and exp of a token this service signed, for revoking it: the signature must verify
 * (so no one revokes by a made-up token), but audience and expiry are not checked.
 */
export async function identifyOwnToken(token: string, key: SigningKey, localIssuer: string): Promise<OwnTokenIdentity> {
  let payload: { iss?: unknown; jti?: unknown; exp?: unknown };
  try {
    const verified = await compactVerify(token, key.publicKey, { algorithms: [SIGNING_ALGORITHM] });
    payload = ownTokenClaims.parse(JSON.parse(new TextDecoder().decode(verified.payload)));
  } catch {
    throw new TokenRejected("not an access token signed by this service's key");
  }
  if (payload.iss !== localIssuer) throw new TokenRejected("not an access token issued by this service");
  if (typeof payload.jti !== "string" || typeof payload.exp !== "number") throw new TokenRejected("the token has no jti or exp claim");
  return { jti: payload.jti, expiresAt: payload.exp };
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
    if (error.reason === "missing") return `The access token has no ${error.claim} claim.`;
    if (error.claim === "aud") return "The access token is not meant for this service (wrong audience).";
    if (error.claim === "typ") return "The access token's typ header is not at+jwt.";
    return `The access token's ${error.claim} claim is not valid.`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) {
    return "The access token's signature algorithm is not accepted (asymmetric algorithms only, matching the key).";
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "The access token's signature does not verify.";
  if (error instanceof joseErrors.JWKSNoMatchingKey) {
    return "No key of the identity provider matches the access token (its kid, or a key type that fits its alg).";
  }
  if (error instanceof joseErrors.JOSEError) return `The access token was rejected (${error.code}).`;
  return "The access token could not be verified.";
}
