import { createHash } from "node:crypto";
import { jwtVerify } from "jose";
import { randomBase62 } from "../lib/ids.ts";
import type { EgressPolicy, Resolver } from "../net/egress.ts";
import { guardedFetch } from "../net/egress-fetch.ts";
import type { IdpPerson } from "./external-identities.ts";
import { IDP_ALGORITHMS, idpKeySet } from "./idp-keys.ts";

/** The firm's OpenID Connect provider, from the configuration (--sso-*). */
export interface SsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  /** What the sign-in page's button names the provider. */
  name: string;
}

/** A sign-in the provider or its answer refused; the sentence is shown on the sign-in page. */
export class SsoRefused extends Error {}

interface Provider {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  keys: ReturnType<typeof idpKeySet>;
}

/** A sign-in in flight: between the redirect to the provider and its answer, at most 10 minutes. */
interface Pending {
  /** Where the caller goes once signed in (opaque here). */
  returnTo: string;
  nonce: string;
  verifier: string;
  expiresAt: number;
}

const PENDING_MS = 10 * 60_000;
const MAX_PENDING = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/**
 * The web app's single sign-on with the firm's OpenID Connect provider: the authorization code
 * flow with PKCE (S256), a state tied to the browser by a cookie, and a nonce in the ID token.
 * The provider's discovery document, token endpoint and keys are all fetched through the egress
 * guard. The ID token is verified with jose (issuer, audience = our client id, algorithm, expiry,
 * nonce); its person is then mapped to a user as the API does for the provider's access tokens
 * (auth/external-identities.ts).
 */
export class OidcSignIn {
  private provider: Promise<Provider> | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly fetch: ReturnType<typeof guardedFetch>;

  constructor(
    private readonly settings: SsoSettings,
    private readonly options: { egress: EgressPolicy; resolve?: Resolver; now: () => number },
  ) {
    this.fetch = guardedFetch(options.egress, options.resolve);
  }

  get name(): string {
    return this.settings.name;
  }

  /** The provider's URL to send the browser to, and the state its cookie must carry back. */
  async start(redirectUri: string, returnTo: string): Promise<{ url: string; state: string }> {
    const provider = await this.discover();
    const now = this.options.now();
    for (const [state, entry] of this.pending) if (entry.expiresAt <= now) this.pending.delete(state);
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    const state = randomBase62(32);
    const entry = { returnTo, nonce: randomBase62(32), verifier: randomBase62(64), expiresAt: now + PENDING_MS };
    this.pending.set(state, entry);
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
    const entry = answer.state ? this.pending.get(answer.state) : undefined;
    // One use only, and only in the browser that started it.
    if (answer.state) this.pending.delete(answer.state);
    if (!entry || !answer.code || answer.state !== answer.cookieState || entry.expiresAt <= this.options.now()) {
      throw new SsoRefused("The sign-in expired or was not started in this browser. Try again.");
    }
    const provider = await this.discover();
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    const form = new URLSearchParams({ grant_type: "authorization_code", code: answer.code.slice(0, 4096), redirect_uri: redirectUri, code_verifier: entry.verifier });
    if (this.settings.clientSecret) {
      const id = encodeURIComponent(this.settings.clientId);
      headers.authorization = `Basic ${Buffer.from(`${id}:${encodeURIComponent(this.settings.clientSecret)}`).toString("base64")}`;
    } else form.set("client_id", this.settings.clientId);
    const tokens = await this.json(provider.tokenEndpoint, { method: "POST", headers, body: form.toString() }, "token endpoint");
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
    return {
      person: {
        issuer: this.settings.issuer,
        subject: claims.sub,
        email: typeof claims.email === "string" ? claims.email.toLowerCase() : undefined,
        emailVerified: claims.email_verified === true,
      },
      returnTo: entry.returnTo,
    };
  }

  /** The discovery document, read once (again after a failure). Its issuer must be the configured one. */
  private discover(): Promise<Provider> {
    this.provider ??= (async () => {
      const document = await this.json(`${this.settings.issuer}/.well-known/openid-configuration`, { method: "GET" }, "discovery document");
      if (document.issuer !== this.settings.issuer) throw new SsoRefused("The identity provider's discovery document names another issuer.");
      const endpoint = (name: string) => {
        const value = document[name];
        if (typeof value !== "string" || !URL.canParse(value)) throw new SsoRefused(`The identity provider's discovery document has no ${name}.`);
        return value;
      };
      return {
        authorizationEndpoint: endpoint("authorization_endpoint"),
        tokenEndpoint: endpoint("token_endpoint"),
        keys: idpKeySet(endpoint("jwks_uri"), { egress: this.options.egress, resolve: this.options.resolve }),
      };
    })().catch((error: unknown) => {
      this.provider = undefined;
      throw error instanceof SsoRefused ? error : new SsoRefused("The identity provider cannot be reached. Try again, or sign in with a password.");
    });
    return this.provider;
  }

  /** A JSON object from the provider, bounded in size and time. */
  private async json(url: string, init: RequestInit, what: string): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await this.fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(10_000) });
    } catch {
      throw new SsoRefused(`The identity provider's ${what} cannot be reached.`);
    }
    const text = await response.text();
    if (text.length > MAX_ANSWER_BYTES) throw new SsoRefused(`The identity provider's ${what} answered too much.`);
    if (!response.ok) throw new SsoRefused(`The identity provider's ${what} answered ${response.status}.`);
    try {
      const value = JSON.parse(text) as unknown;
      if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // below
    }
    throw new SsoRefused(`The identity provider's ${what} did not answer JSON.`);
  }
}
