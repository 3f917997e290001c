import { createHash } from "node:crypto";
import { jwtVerify } from "jose";
import { randomBase62 } from "../lib/ids.ts";
import type { EgressPolicy, Resolver } from "../net/egress.ts";
import { guardedFetch } from "../net/egress-fetch.ts";
import type { IdpPerson } from "./external-identity-store.ts";
import { IDP_ALGORITHMS, idpKeySet } from "./idp-keys.ts";
import { providerJson, type ProviderFetch } from "./oidc-answer.ts";
import { PendingSignIns, type PendingLimits } from "./oidc-pending.ts";
import { fetchUserInfo } from "./oidc-userinfo.ts";
import { SsoRefused } from "./sso-refused.ts";

export { SsoRefused } from "./sso-refused.ts";

/** The firm's OpenID Connect provider, from the configuration (--sso-*). */
export interface SsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  /** What the sign-in page's button names the provider. */
  name: string;
}

interface Provider {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** Optional in discovery (OpenID Connect Discovery 3: RECOMMENDED). */
  userinfoEndpoint: string | undefined;
  keys: ReturnType<typeof idpKeySet>;
}

/** A sign-in in flight: between the redirect to the provider and its answer. */
interface Pending {
  /** Where the caller goes once signed in (opaque here). */
  returnTo: string;
  nonce: string;
  verifier: string;
}

/** A sign-in must come back from the provider within 10 minutes of its start (the state cookie's life too). */
export const SSO_PENDING_MS = 10 * 60_000;
/**
 * Sign-ins in flight per client address (one office behind one NAT address shares it: sized for
 * a firm's morning, far above what a person needs) and in all (about 400 bytes each).
 */
export const SSO_PENDING_LIMITS: PendingLimits = { ttlMs: SSO_PENDING_MS, perClient: 100, total: 20_000 };

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/**
 * The web app's single sign-on with the firm's OpenID Connect provider: the authorization code
 * flow with PKCE (S256), a state tied to the browser by a cookie, and a nonce in the ID token.
 * The provider's discovery document, token endpoint, keys and UserInfo endpoint are all fetched
 * through the egress guard. The ID token is verified with jose (issuer, audience = our client id,
 * algorithm, expiry, nonce); when it carries no email, the UserInfo endpoint is asked for it
 * (auth/oidc-userinfo.ts). The person is then mapped to a user as the API does for the
 * provider's access tokens (auth/external-identity-store.ts). Sign-ins in flight are held in memory,
 * bounded per client address (auth/oidc-pending.ts).
 */
export class OidcSignIn {
  private provider: Promise<Provider> | undefined;
  private readonly pending: PendingSignIns<Pending>;
  private readonly fetch: ProviderFetch;

  constructor(
    private readonly settings: SsoSettings,
    private readonly options: { egress: EgressPolicy; resolve?: Resolver; now: () => number; limits?: PendingLimits },
  ) {
    this.fetch = guardedFetch(options.egress, options.resolve);
    this.pending = new PendingSignIns(options.limits ?? SSO_PENDING_LIMITS);
  }

  get name(): string {
    return this.settings.name;
  }

  /**
   * The provider's URL to send the browser to, and the state its cookie must carry back.
   * `clientKey` names who asked (their address's key): it bounds how many sign-ins they hold.
   */
  async start(redirectUri: string, returnTo: string, clientKey: string): Promise<{ url: string; state: string }> {
    const provider = await this.discover();
    const state = randomBase62(32);
    const entry = { returnTo, nonce: randomBase62(32), verifier: randomBase62(64) };
    this.pending.add(state, clientKey, entry, this.options.now());
    const url = new URL(provider.authorizationEndpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: this.settings.clientId,
      redirect_uri: redirectUri,
      scope: "openid email profile",
      state,
      nonce: entry.nonce,
      code_challenge: base64url(createHash("sha256").update(entry.verifier).digest()),
      code_challenge_method: "S256",
    }).toString();
    return { url: url.toString(), state };
  }

  /** The person the provider signed in, from its answer on the callback, and where the sign-in was to return. */
  async finish(
    answer: { state: string | null; cookieState: string | undefined; code: string | null; error: string | null },
    redirectUri: string,
  ): Promise<{ person: IdpPerson; returnTo: string }> {
    if (answer.error) throw new SsoRefused(`The identity provider refused the sign-in (${answer.error.slice(0, 100)}).`);
    // One use only, within its time, and only in the browser that started it.
    const entry = answer.state ? this.pending.take(answer.state, this.options.now()) : undefined;
    if (!entry || !answer.code || answer.state !== answer.cookieState) {
      throw new SsoRefused("The sign-in expired or was not started in this browser. Try again.");
    }
    const provider = await this.discover();
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    const form = new URLSearchParams({ grant_type: "authorization_code", code: answer.code.slice(0, 4096), redirect_uri: redirectUri, code_verifier: entry.verifier });
    if (this.settings.clientSecret) {
      const id = encodeURIComponent(this.settings.clientId);
      headers.authorization = `Basic ${Buffer.from(`${id}:${encodeURIComponent(this.settings.clientSecret)}`).toString("base64")}`;
    } else form.set("client_id", this.settings.clientId);
    const tokens = await providerJson(this.fetch, provider.tokenEndpoint, { method: "POST", headers, body: form.toString() }, "token endpoint");
    if (typeof tokens.id_token !== "string") throw new SsoRefused("The identity provider's answer carries no ID token.");
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(tokens.id_token, provider.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.clientId,
        algorithms: [...IDP_ALGORITHMS],
        clockTolerance: 60,
      }));
    } catch (error) {
      throw new SsoRefused(`The identity provider's ID token is not valid (${(error as Error).message.slice(0, 200)}).`);
    }
    if (claims.nonce !== entry.nonce) throw new SsoRefused("The ID token was not made for this sign-in (nonce).");
    if (typeof claims.sub !== "string" || claims.sub === "") throw new SsoRefused("The ID token names no subject.");
    const emailClaims = claims.email !== undefined ? claims : await this.userInfo(provider, tokens, claims.sub);
    return {
      person: {
        issuer: this.settings.issuer,
        subject: claims.sub,
        email: typeof emailClaims.email === "string" ? emailClaims.email.toLowerCase() : undefined,
        emailVerified: emailClaims.email_verified === true,
      },
      returnTo: entry.returnTo,
    };
  }

  /**
   * The person's claims from the UserInfo endpoint, when the ID token left out the email (OpenID
   * Connect Core 5.4). Without an endpoint or an access token there is nothing to ask: the person
   * is then known by the subject alone (a linked identity still signs in).
   */
  private async userInfo(provider: Provider, tokens: Record<string, unknown>, subject: string): Promise<Record<string, unknown>> {
    if (!provider.userinfoEndpoint || typeof tokens.access_token !== "string") return {};
    if (typeof tokens.token_type === "string" && tokens.token_type.toLowerCase() !== "bearer") {
      throw new SsoRefused(`The identity provider issued a ${tokens.token_type.slice(0, 20)} access token; Verbatim calls its UserInfo endpoint with a Bearer token only.`);
    }
    return fetchUserInfo(this.fetch, {
      endpoint: provider.userinfoEndpoint,
      accessToken: tokens.access_token,
      subject,
      issuer: this.settings.issuer,
      clientId: this.settings.clientId,
      keys: provider.keys,
    });
  }

  /** The discovery document, read once (again after a failure). Its issuer must be the configured one. */
  private discover(): Promise<Provider> {
    this.provider ??= (async () => {
      const document = await providerJson(this.fetch, `${this.settings.issuer}/.well-known/openid-configuration`, { method: "GET" }, "discovery document");
      if (document.issuer !== this.settings.issuer) throw new SsoRefused("The identity provider's discovery document names another issuer.");
      const endpoint = (name: string) => {
        const value = document[name];
        if (typeof value !== "string" || !URL.canParse(value)) throw new SsoRefused(`The identity provider's discovery document has no ${name}.`);
        return value;
      };
      return {
        authorizationEndpoint: endpoint("authorization_endpoint"),
        tokenEndpoint: endpoint("token_endpoint"),
        userinfoEndpoint: document.userinfo_endpoint === undefined ? undefined : endpoint("userinfo_endpoint"),
        keys: idpKeySet(endpoint("jwks_uri"), { egress: this.options.egress, resolve: this.options.resolve }),
      };
    })().catch((error: unknown) => {
      this.provider = undefined;
      throw error instanceof SsoRefused ? error : new SsoRefused("The identity provider cannot be reached. Try again, or sign in with a password.");
    });
    return this.provider;
  }
}
