import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Actor } from "../auth/actor.ts";
import { isScope, SCOPES, type Scope } from "../auth/scopes.ts";
import { getUserById, userIsActive } from "../auth/user-store.ts";
import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, type AuditedActor, type AuditTrail } from "../audit/types.ts";
import type { Conn } from "../db/conn.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import type { EgressPolicy, Resolver } from "../net/egress.ts";
import { ClientRefused, fetchClientMetadata, isMetadataDocumentUrl } from "./client-metadata.ts";
import { isCodeChallenge, newSecret, secretHash, verifierMatches } from "./pkce.ts";
import { MAX_URI_LENGTH, redirectUriMatches, redirectUriRefusal, withQuery } from "./redirect-uris.ts";
import { MAX_CLIENT_NAME, registrationBody } from "./schema.ts";
import * as store from "./store.ts";

export { ClientRefused };

export const CODE_TTL_MS = 60_000;
export const DEFAULT_REFRESH_TTL_SECONDS = 30 * 86_400;
/** POST /oauth/register per client address and hour. */
export const REGISTRATIONS_PER_HOUR = 10;
/** How long the authenticator may trust that a grant stands: a revocation stops its tokens within this. */
export const GRANT_CHECK_CACHE_MS = 1_000;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const MAX_STATE_LENGTH = 1000;
const MAX_SCOPE_LENGTH = 1000;
const MAX_CLIENT_ID_LENGTH = MAX_URI_LENGTH;

export interface OAuthServerSettings {
  /** Client ID Metadata Documents are fetched (--oauth-cimd). */
  cimd: boolean;
  /** POST /oauth/register is open (--oauth-dcr). */
  dcr: boolean;
  /** Access token lifetime (--oauth-access-ttl), seconds. */
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

export interface OAuthAppDeps {
  conn: Conn;
  clock: Clock;
  audit: AuditTrail;
  tokens: AccessTokens;
  /** This server's public URL (the issuer), known once listening. */
  publicUrl: () => string;
  settings: OAuthServerSettings;
  egress: EgressPolicy;
  resolve?: Resolver;
  /** The certificates the CIMD fetch trusts (--ca-file with the system roots: net/trust.ts); undefined: the runtime's. */
  ca?: string;
}

/** A client as the consent page shows it. */
export interface OAuthClient {
  clientId: string;
  kind: "cimd" | "dcr";
  name: string;
  redirectUris: string[];
}

/** An authorization request that passed every check: what the consent page shows and issueCode takes. */
export interface ValidatedRequest {
  client: OAuthClient;
  redirectUri: string;
  /** The host the browser will be sent back to (shown on the consent page). */
  redirectHost: string;
  scopes: Scope[];
  state: string | undefined;
  codeChallenge: string;
  resource: string;
}

/** The outcome of checking /oauth/authorize's parameters (RFC 6749 4.1.2.1). */
export type AuthorizationCheck =
  | { kind: "valid"; request: ValidatedRequest }
  /** No trustworthy redirect URI (unknown client, unregistered URI): show `message` on a page, never redirect. */
  | { kind: "page_error"; message: string }
  /** The redirect URI is the client's: send the browser there with the error. */
  | { kind: "redirect_error"; redirectTo: string };

/** A token endpoint answer: RFC 6749 5.1 on success, 5.2 on error. */
export type TokenReply = { status: 200; body: Record<string, unknown> } | { status: 400 | 401 | 429; body: { error: string; error_description: string } };

export type GrantView = Pick<store.GrantRow, "id" | "clientId" | "clientName" | "resource" | "createdAt" | "lastUsedAt"> & { scopes: Scope[] };

export type OAuthApp = ReturnType<typeof oauthApp>;

/** The resources (RFC 8707) tokens may be bound to: the MCP endpoint and the REST API. */
export function oauthResources(publicUrl: string): string[] {
  return [`${publicUrl}/mcp`, `${publicUrl}/api`];
}

function oauthError(status: 400 | 401 | 429, error: string, description: string): TokenReply {
  return { status, body: { error, error_description: description } };
}

function scopesOf(stored: readonly string[]): Scope[] {
  return stored.filter(isScope);
}

/** The OAuth 2.1 authorization server's use cases (issue 24): clients, consent, tokens, grants. */
export function oauthApp(deps: OAuthAppDeps) {
  const { conn, clock, settings } = deps;
  const grantChecks = new Map<string, { live: boolean; at: number }>();
  const lastUsedWrites = new Map<string, number>();

  const issuer = () => deps.publicUrl();
  const resources = () => oauthResources(deps.publicUrl());

  /** Who acts at the token endpoint: the grant's account, through the client's token. */
  const grantActor = (grant: store.GrantRow, clientAddress: string | null): AuditedActor => ({
    account: { userId: grant.userId },
    channel: "api",
    credential: { type: "oauth", id: grant.id },
    clientAddress: () => clientAddress,
  });

  async function resolveClient(clientId: string): Promise<OAuthClient> {
    if (clientId === "" || clientId.length > MAX_CLIENT_ID_LENGTH) throw new ClientRefused("The client_id is missing or too long.");
    const now = clock.now();
    const known = await store.findClient(conn, clientId);
    if (isMetadataDocumentUrl(clientId)) {
      if (!settings.cimd) throw new ClientRefused("This server does not fetch Client ID Metadata Documents; the client must register (dynamic client registration).");
      if (known && known.kind === "cimd" && known.expiresAt !== null && known.expiresAt > now) return clientOf(known);
      const fetched = await fetchClientMetadata(clientId, { egress: deps.egress, resolve: deps.resolve, ca: deps.ca });
      const row = { clientId, kind: "cimd" as const, name: fetched.name, redirectUris: fetched.redirectUris, createdAt: known?.createdAt ?? now, fetchedAt: now, expiresAt: now + fetched.cacheMs };
      await store.saveClient(conn, row);
      return clientOf(row);
    }
    if (!known || known.kind !== "dcr") throw new ClientRefused("This client is not known to this server (not registered, and its client_id is not an https metadata document URL).");
    if (!settings.dcr) throw new ClientRefused("Dynamically registered clients are turned off on this server.");
    return clientOf(known);
  }

  function clientOf(row: store.ClientRow): OAuthClient {
    return { clientId: row.clientId, kind: row.kind, name: row.name, redirectUris: row.redirectUris };
  }

  /** The error redirect of RFC 6749 4.1.2.1, with state and iss (RFC 9207). */
  function errorRedirect(redirectUri: string, state: string | undefined, error: string, description: string): AuthorizationCheck {
    return { kind: "redirect_error", redirectTo: withQuery(redirectUri, { error, error_description: description, state, iss: issuer() }) };
  }

  async function checkAuthorizationRequest(params: Record<string, string | undefined>): Promise<AuthorizationCheck> {
    const clientId = params.client_id ?? "";
    let client: OAuthClient;
    try {
      client = await resolveClient(clientId);
    } catch (error) {
      if (error instanceof ClientRefused) return { kind: "page_error", message: error.message };
      throw error;
    }
    const redirectUri = params.redirect_uri;
    // Without a redirect_uri the only registered one would do (OAuth 2.1 allows that only for one);
    // we require it always: the token request must repeat it.
    if (!redirectUri || redirectUri.length > MAX_URI_LENGTH || !redirectUriMatches(redirectUri, client.redirectUris)) {
      return { kind: "page_error", message: "The redirect_uri is missing or is not one the client registered; nothing was sent back to it." };
    }
    const state = params.state;
    if (state !== undefined && state.length > MAX_STATE_LENGTH) return errorRedirect(redirectUri, undefined, "invalid_request", `state is at most ${MAX_STATE_LENGTH} characters`);
    if (params.response_type !== "code") return errorRedirect(redirectUri, state, "unsupported_response_type", "response_type must be code");
    if (params.code_challenge_method !== "S256") return errorRedirect(redirectUri, state, "invalid_request", "PKCE is required: code_challenge_method must be S256");
    if (!params.code_challenge || !isCodeChallenge(params.code_challenge)) return errorRedirect(redirectUri, state, "invalid_request", "code_challenge must be the 43-character S256 challenge");
    const resource = params.resource;
    if (!resource) return errorRedirect(redirectUri, state, "invalid_target", `resource is required (RFC 8707): ${resources().join(" or ")}`);
    if (!resources().includes(resource)) return errorRedirect(redirectUri, state, "invalid_target", `resource must be one of: ${resources().join(", ")}`);
    const scope = params.scope;
    if (scope !== undefined && scope.length > MAX_SCOPE_LENGTH) return errorRedirect(redirectUri, state, "invalid_scope", "scope is too long");
    const asked = scope === undefined || scope.trim() === "" ? [...SCOPES] : scope.trim().split(/\s+/);
    const unknown = asked.filter((name) => !isScope(name));
    if (unknown.length) return errorRedirect(redirectUri, state, "invalid_scope", `unknown scope(s): ${unknown.slice(0, 5).join(", ").slice(0, 200)}; known: ${SCOPES.join(" ")}`);
    return {
      kind: "valid",
      request: { client, redirectUri, redirectHost: new URL(redirectUri).host || new URL(redirectUri).protocol, scopes: [...new Set(asked)] as Scope[], state, codeChallenge: params.code_challenge, resource },
    };
  }

  /**
   * Consent given: a grant of `approvedScopes` (a non-empty part of what was asked) is recorded
   * and a 60-second code sent back with state and iss. The grant shows in Connected apps at once.
   */
  async function issueCode(actor: Actor, request: ValidatedRequest, approvedScopes: readonly Scope[]): Promise<{ redirectTo: string; grantId: string }> {
    const scopes = [...new Set(approvedScopes)].filter((s) => request.scopes.includes(s));
    if (scopes.length === 0) throw new RangeError("approve at least one of the scopes the client asked for");
    const now = clock.now();
    const code = newSecret();
    const grant: store.GrantRow = {
      id: randomId("ogr"),
      userId: actor.account.userId,
      clientId: request.client.clientId,
      clientName: request.client.name.slice(0, MAX_CLIENT_NAME),
      scopes,
      resource: request.resource,
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    };
    await store.insertGrantWithCode(conn, grant, {
      codeHash: secretHash(code),
      userId: grant.userId,
      grantId: grant.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      createdAt: now,
      expiresAt: now + CODE_TTL_MS,
      usedAt: null,
    });
    await deps.audit.record(actorEntry(actor, AUDIT_ACTIONS.oauthGrantCreated, { type: "oauth_grant", id: grant.id }, { client_id: grant.clientId.slice(0, 200), scopes: scopes.join(" ") }));
    return { redirectTo: withQuery(request.redirectUri, { code, state: request.state, iss: issuer() }), grantId: grant.id };
  }

  /** The person said no: back to the client with access_denied (RFC 6749 4.1.2.1). */
  function denyRedirect(request: ValidatedRequest): string {
    return withQuery(request.redirectUri, { error: "access_denied", error_description: "The person denied the request.", state: request.state, iss: issuer() });
  }

  async function mintFor(grant: store.GrantRow, scopes: Scope[], refreshToken: string, clientAddress: string | null): Promise<TokenReply> {
    const user = await getUserById(conn, grant.userId);
    if (!user) return oauthError(400, "invalid_grant", "The grant's account no longer exists.");
    const minted = await deps.tokens.mint({ subject: user.id, email: user.email, scopes, ttlSeconds: settings.accessTtlSeconds, clientId: grant.clientId, audience: grant.resource, grantId: grant.id });
    await deps.audit.record(actorEntry(grantActor(grant, clientAddress), AUDIT_ACTIONS.tokenMinted, { type: "oauth_grant", id: grant.id }, { jti: minted.jti, client_id: grant.clientId.slice(0, 200) }));
    return { status: 200, body: { access_token: minted.token, token_type: "Bearer", expires_in: settings.accessTtlSeconds, refresh_token: refreshToken, scope: scopes.join(" ") } };
  }

  async function exchangeCode(form: URLSearchParams, clientAddress: string | null): Promise<TokenReply> {
    const code = form.get("code");
    const verifier = form.get("code_verifier");
    const redirectUri = form.get("redirect_uri");
    const clientId = form.get("client_id");
    if (!code || code.length > 200) return oauthError(400, "invalid_request", "code is required");
    if (!verifier) return oauthError(400, "invalid_request", "code_verifier is required (PKCE)");
    if (!redirectUri) return oauthError(400, "invalid_request", "redirect_uri is required");
    if (!clientId) return oauthError(400, "invalid_request", "client_id is required (public clients identify themselves)");
    const resource = form.get("resource");
    const now = clock.now();
    const refreshToken = newSecret();
    const outcome = await store.redeemCode(
      conn,
      secretHash(code),
      now,
      (row, grant) => grant.clientId !== clientId || row.redirectUri !== redirectUri || !verifierMatches(verifier, row.codeChallenge) || (resource !== null && resource !== grant.resource),
      { hash: secretHash(refreshToken), expiresAt: now + settings.refreshTtlSeconds * 1000 },
    );
    if (outcome.outcome === "replayed") {
      await grantRevoked(outcome.grant, grantActor(outcome.grant, clientAddress), "code_replayed");
      return oauthError(400, "invalid_grant", "The authorization code was already used; the authorization it gave is revoked.");
    }
    if (outcome.outcome !== "issued") return oauthError(400, "invalid_grant", "The authorization code is not valid, has expired, or does not match this client, redirect_uri, code_verifier or resource.");
    if (!(await userIsActive(conn, outcome.grant.userId))) return oauthError(400, "invalid_grant", "The account is disabled.");
    return mintFor(outcome.grant, scopesOf(outcome.grant.scopes), refreshToken, clientAddress);
  }

  async function refresh(form: URLSearchParams, clientAddress: string | null): Promise<TokenReply> {
    const presented = form.get("refresh_token");
    const clientId = form.get("client_id");
    if (!presented || presented.length > 200) return oauthError(400, "invalid_request", "refresh_token is required");
    if (!clientId) return oauthError(400, "invalid_request", "client_id is required (public clients identify themselves)");
    const resource = form.get("resource");
    const scope = form.get("scope");
    if (scope !== null && scope.length > MAX_SCOPE_LENGTH) return oauthError(400, "invalid_scope", "scope is too long");
    const now = clock.now();
    const next = newSecret();
    const outcome = await store.rotateRefreshToken(conn, secretHash(presented), now, (grant) => grant.clientId !== clientId || (resource !== null && resource !== grant.resource), {
      hash: secretHash(next),
      expiresAt: now + settings.refreshTtlSeconds * 1000,
    });
    if (outcome.outcome === "reused") {
      await grantRevoked(outcome.grant, grantActor(outcome.grant, clientAddress), "refresh_token_reused");
      return oauthError(400, "invalid_grant", "The refresh token was already used; the whole authorization is revoked. Connect the client again.");
    }
    if (outcome.outcome !== "rotated") return oauthError(400, "invalid_grant", "The refresh token is not valid, has expired, was revoked, or belongs to another client or resource.");
    if (!(await userIsActive(conn, outcome.grant.userId))) return oauthError(400, "invalid_grant", "The account is disabled.");
    const granted = scopesOf(outcome.grant.scopes);
    // A narrower scope may be asked for this access token (RFC 6749 section 6); never a wider one.
    const asked = scope === null || scope.trim() === "" ? granted : scope.trim().split(/\s+/);
    if (!asked.every((s) => (granted as string[]).includes(s))) return oauthError(400, "invalid_scope", "The scope asked for goes beyond what was granted.");
    return mintFor(outcome.grant, [...new Set(asked)] as Scope[], next, clientAddress);
  }

  /** A grant was revoked here: this node stops its tokens at once (others within a second), and the trail says why. */
  async function grantRevoked(grant: Pick<store.GrantRow, "id">, by: AuditedActor, reason: string): Promise<void> {
    grantChecks.delete(grant.id);
    await deps.audit.record(actorEntry(by, AUDIT_ACTIONS.oauthGrantRevoked, { type: "oauth_grant", id: grant.id }, { reason }));
  }

  return {
    resources,
    issuer,
    resolveClient,
    checkAuthorizationRequest,
    issueCode,
    denyRedirect,

    /** POST /oauth/token (form already parsed and bounded by the route). */
    async token(form: URLSearchParams, clientAddress: string | null): Promise<TokenReply> {
      const grantType = form.get("grant_type");
      if (grantType === "authorization_code") return exchangeCode(form, clientAddress);
      if (grantType === "refresh_token") return refresh(form, clientAddress);
      return oauthError(400, grantType ? "unsupported_grant_type" : "invalid_request", "grant_type must be authorization_code or refresh_token");
    },

    /**
     * POST /oauth/revoke (RFC 7009): a refresh token or one of the service's access tokens from
     * this server; either revokes the grant it belongs to. Anything else is ignored (still 200).
     */
    async revokeToken(token: string, clientAddress: string | null): Promise<void> {
      let grant = token.length <= 200 ? await store.grantOfRefreshToken(conn, secretHash(token)) : undefined;
      if (!grant && token.length <= 8192) {
        const verified = await deps.tokens.verify(token).catch(() => undefined);
        if (verified?.grantId) grant = await store.findGrant(conn, verified.grantId);
      }
      if (!grant || !(await store.revokeGrant(conn, grant.id, clock.now()))) return;
      await grantRevoked(grant, grantActor(grant, clientAddress), "revocation_endpoint");
    },

    /** POST /oauth/register (RFC 7591): a public client; null when registration is off. */
    async register(body: unknown): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false; error: string; description: string }> {
      const parsed = registrationBody.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const error = issue.path[0] === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata";
        return { ok: false, error, description: `${issue.path.join(".") || "body"}: ${issue.message}` };
      }
      for (const uri of parsed.data.redirect_uris) {
        const refusal = redirectUriRefusal(uri);
        if (refusal) return { ok: false, error: "invalid_redirect_uri", description: refusal };
      }
      const now = clock.now();
      const clientId = randomId("ocl");
      const name = parsed.data.client_name ?? "Unnamed client";
      await store.saveClient(conn, { clientId, kind: "dcr", name, redirectUris: parsed.data.redirect_uris, createdAt: now, fetchedAt: now, expiresAt: null });
      return {
        ok: true,
        body: {
          client_id: clientId,
          client_id_issued_at: Math.floor(now / 1000),
          client_name: name,
          redirect_uris: parsed.data.redirect_uris,
          token_endpoint_auth_method: "none",
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
        },
      };
    },

    /** Settings → Connected apps: the account's live grants, newest first. */
    async listGrants(actor: Actor): Promise<GrantView[]> {
      return (await store.listLiveGrants(conn, actor.account.userId)).map((g) => ({
        id: g.id,
        clientId: g.clientId,
        clientName: g.clientName,
        resource: g.resource,
        createdAt: g.createdAt,
        lastUsedAt: g.lastUsedAt,
        scopes: scopesOf(g.scopes),
      }));
    },

    /** Revokes one of the account's grants (another account's id: false, shown as not found). */
    async revokeGrant(actor: Actor, grantId: string): Promise<boolean> {
      if (grantId.length > 100 || !(await store.revokeGrant(conn, grantId, clock.now(), actor.account.userId))) return false;
      await grantRevoked({ id: grantId }, actor, "revoked_by_owner");
      return true;
    },

    /**
     * For the authenticator: whether the grant a token names still stands. Answered from memory for
     * at most GRANT_CHECK_CACHE_MS, so a revocation on any node stops the token within a second.
     * Also records the grant's last use (at most once a minute).
     */
    async grantIsLive(grantId: string): Promise<boolean> {
      const now = clock.now();
      const cached = grantChecks.get(grantId);
      if (cached && now - cached.at < GRANT_CHECK_CACHE_MS) return cached.live;
      const live = await store.grantIsLive(conn, grantId);
      // Bounded: a flood of distinct grant ids (all of them signed by us) cannot grow it without end.
      if (grantChecks.size >= 10_000) grantChecks.clear();
      grantChecks.set(grantId, { live, at: now });
      if (live && now - (lastUsedWrites.get(grantId) ?? 0) >= LAST_USED_WRITE_INTERVAL_MS) {
        if (lastUsedWrites.size >= 10_000) lastUsedWrites.clear();
        lastUsedWrites.set(grantId, now);
        // Advisory (Connected apps' "last used"): a failed write is not the request's failure.
        store.touchGrant(conn, grantId, now).catch(() => lastUsedWrites.delete(grantId));
      }
      return live;
    },
  };
}
