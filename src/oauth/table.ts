import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

/**
 * The OAuth 2.1 authorization server's clients (issue 24): a Client ID Metadata Document's URL
 * (kind 'cimd', the fetched document cached until `expires_at`) or a client registered by RFC 7591
 * (kind 'dcr', a random id, never expires). Public clients only: there is no secret column.
 */
export const oauthClients = sqliteTable(
  "oauth_clients",
  {
    clientId: text("client_id").primaryKey(),
    kind: text("kind", { enum: ["cimd", "dcr"] }).notNull(),
    name: text("name").notNull(),
    redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
    /** CIMD: when the document was last fetched; DCR: the registration time. */
    fetchedAt: integer("fetched_at").notNull(),
    /** CIMD: the cached document is fetched again after this (ms); DCR: null. */
    expiresAt: integer("expires_at"),
  },
);

/**
 * A person's consent to one client: the scopes and the resource (RFC 8707) its tokens carry.
 * Revoking it stops its access tokens (the authenticator checks the grant named in each) and its
 * refresh tokens. Deleted with the account (its user_id).
 */
export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    /** ogr_<random>. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    clientId: text("client_id").notNull(),
    /** The client's name when consent was given (shown in Connected apps even if the client row changes). */
    clientName: text("client_name").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    resource: text("resource").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oauth_grants_user_idx").on(t.userId)],
);

/**
 * Authorization codes (60 s, single use): only the code's SHA-256 is stored. The grant is made at
 * consent (oauth/app.ts issueCode); a second exchange of the same code revokes it.
 */
export const oauthCodes = sqliteTable(
  "oauth_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id),
    /** The redirect_uri of the authorization request: the token request must name it again. */
    redirectUri: text("redirect_uri").notNull(),
    /** PKCE S256: BASE64URL(SHA-256(code_verifier)). */
    codeChallenge: text("code_challenge").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (t) => [index("oauth_codes_user_idx").on(t.userId)],
);

export const oauthRefreshTokens = sqliteTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /** 0 for the token issued with the code, +1 at each rotation. */
    generation: integer("generation").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (t) => [index("oauth_refresh_tokens_grant_idx").on(t.grantId), index("oauth_refresh_tokens_user_idx").on(t.userId)],
);
