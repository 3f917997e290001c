import type { DbConn } from "../db/conn.ts";
import type { Clock } from "../lib/time.ts";
import { TokenRejected, type AccessTokens } from "./access-tokens.ts";
import { looksLikeApiKey } from "./api-keys.ts";
import { createApiKeyLookup, type ApiKeyMatch } from "./api-key-store.ts";
import type { Scope } from "./scopes.ts";
import { userForIdpToken } from "./external-identity-store.ts";
import { isTokenRevoked } from "./revocation-store.ts";
import type { User } from "./users.ts";
import { getUserById, userIsActive } from "./user-store.ts";

export interface Credential {
  type: "api_key" | "oauth";
  id: string;
  name: string | null;
  scopes: Scope[];
  expiresAt: number | null; // unix seconds, tokens only
}

export interface Principal {
  user: User;
  credential: Credential;
  /** What the rate limiter counts against: one key, or one token subject and client. */
  rateKey: string;
  /** The request's client address (through the trusted proxy), set per request by the router (the outcome itself is cached per key). */
  clientAddress?: () => string;
  /** An access token's audience (aud): the resource it was bound to (RFC 8707), for endpoints that check theirs (/mcp). */
  audience?: string;
}

export type AuthOutcome =
  | { kind: "anonymous" }
  | { kind: "authenticated"; principal: Principal }
  | { kind: "rejected"; detail: string };

// Writing last_used_at on every request would turn each read into a write; once a minute is enough.
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Resolves an Authorization header to a principal: an API key, or an OAuth access token. */
export class Authenticator {
  private readonly keys;
  private readonly lastUsedWrites = new Map<string, number>();
  /** The outcome of a key the lookup answered from its cache, built once and shared by its requests (read only). */
  private readonly keyOutcomes = new WeakMap<object, AuthOutcome>();

  constructor(
    private readonly conn: DbConn,
    private readonly tokens: AccessTokens,
    private readonly clock: Clock,
    /**
     * Whether a grant of the OAuth authorization server still stands (oauth/app.ts, cached ≤ 1 s):
     * a token minted for a revoked grant is refused. Without it, such tokens are refused outright.
     */
    private readonly grantIsLive?: (grantId: string) => Promise<boolean>,
  ) {
    this.keys = createApiKeyLookup(conn);
  }

  /** Keys were created or revoked in this process (the web app): cached answers must not outlive that. */
  forgetCachedKeys(): void {
    this.keys.forget();
  }

  /**
   * An API key seen since the database last changed is answered at once (from the lookup's
   * memory), another key and access tokens (jose) in a promise.
   */
  authenticate(header: string | null): AuthOutcome | Promise<AuthOutcome> {
    if (header === null || header.trim() === "") return { kind: "anonymous" };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return { kind: "rejected", detail: "The Authorization header must be of the form: Bearer <API key or access token>." };
    const token = match[1]!;
    return looksLikeApiKey(token) ? this.byApiKey(token) : this.byAccessToken(token);
  }

  private byApiKey(presented: string): AuthOutcome | Promise<AuthOutcome> {
    const found = this.keys.find(presented);
    return found instanceof Promise ? found.then((settled) => this.keyOutcome(settled)) : this.keyOutcome(found);
  }

  private keyOutcome(found: ApiKeyMatch | undefined): AuthOutcome {
    if (!found) return { kind: "rejected", detail: "The API key is not valid." };
    if (found.key.revokedAt !== null) return { kind: "rejected", detail: "The API key was revoked." };
    const now = this.clock.now();
    const lastWrite = this.lastUsedWrites.get(found.key.id) ?? found.key.lastUsedAt ?? 0;
    if (now - lastWrite >= LAST_USED_WRITE_INTERVAL_MS) {
      this.lastUsedWrites.set(found.key.id, now);
      // Advisory (shown in key listings): a failed write is not the request's failure.
      this.keys.touch(found.key.id, now).catch(() => this.lastUsedWrites.delete(found.key.id));
    }
    let outcome = this.keyOutcomes.get(found);
    if (!outcome) {
      // Not frozen: JSON.stringify of frozen objects leaves JSC's fast path (measured 3x slower).
      outcome = {
        kind: "authenticated",
        principal: {
          user: found.user,
          credential: {
            type: "api_key",
            id: found.key.id,
            name: found.key.name,
            scopes: found.key.scopes,
            expiresAt: null,
          },
          rateKey: `key:${found.key.id}`,
        },
      };
      this.keyOutcomes.set(found, outcome);
    }
    return outcome;
  }

  private async byAccessToken(token: string): Promise<AuthOutcome> {
    let verified;
    try {
      verified = await this.tokens.verify(token);
    } catch (error) {
      if (error instanceof TokenRejected) return { kind: "rejected", detail: error.message };
      throw error;
    }
    let user: User | undefined;
    if (verified.local) {
      // Local tokens name the user by id (their email claim never stands in for it), and can be
      // revoked by jti: one primary-key lookup, only for these tokens.
      if (await isTokenRevoked(this.conn, verified.tokenId!)) return { kind: "rejected", detail: "The access token has been revoked." };
      if (verified.grantId !== undefined && !(await this.grantIsLive?.(verified.grantId))) {
        return { kind: "rejected", detail: "The access token's authorization was revoked." };
      }
      user = await getUserById(this.conn, verified.subject);
      if (!user) return { kind: "rejected", detail: "The access token's subject is not a user of this service." };
      // Disabled by an administrator: the token is refused while the account stays disabled.
      if (!(await userIsActive(this.conn, user.id))) return { kind: "rejected", detail: "The user's account is disabled." };
    } else {
      // An IdP's sub is its own, never a user id here: it is linked to a user by a verified email.
      const mapped = await userForIdpToken(
        this.conn,
        { issuer: verified.issuer, subject: verified.subject, email: verified.email, emailVerified: verified.emailVerified },
        this.clock.now(),
      );
      if ("refused" in mapped) return { kind: "rejected", detail: mapped.refused };
      user = mapped.user;
    }
    const client = verified.clientId ?? "unknown";
    return {
      kind: "authenticated",
      principal: {
        user,
        credential: {
          type: "oauth",
          id: verified.tokenId ?? `${verified.issuer}#${verified.subject}`,
          name: client,
          scopes: verified.scopes,
          expiresAt: verified.expiresAt ?? null,
        },
        rateKey: `oauth:${verified.issuer}:${user.id}:${client}`,
        ...(verified.audience !== undefined ? { audience: verified.audience } : {}),
      },
    };
  }
}
