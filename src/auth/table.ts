import { sqliteTable, text, integer, index, primaryKey, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Scope } from "./scopes.ts";

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name"),
    plan: text("plan", { enum: ["free", "standard", "pro"] }).notNull(),
    createdAt: integer("created_at").notNull(),
    /** Argon2id (Bun.password) for signing in to the web app; null: this user has no password. */
    passwordHash: text("password_hash"),
    /** The web app's language for this user: en or fr; null: from the browser's Accept-Language. */
    locale: text("locale", { enum: ["en", "fr"] }),
    /**
     * Set when the account was deleted (admin user delete) but its ledger lines, which are
     * immutable and name it, keep the row: email, name and password are gone, and nothing signs in
     * as it or writes for it (triggers of migration 0013 refuse new rows of its).
     */
    deletedAt: integer("deleted_at"),
    /** admin: may use the administration console (/admin); a data dir always keeps at least one. */
    role: text("role", { enum: ["user", "admin"] }).notNull().default("user"),
    /**
     * Set while an administrator has disabled the account: nobody signs in as it, its sessions are
     * gone and its API keys and tokens are refused, until it is enabled again (the keys then work again).
     */
    disabledAt: integer("disabled_at"),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email)],
);

/**
 * Signed-in web app sessions. The cookie holds a random token; only its SHA-256 is stored, so a
 * copy of the database signs nobody in. Each session carries its own CSRF token.
 */
export const webSessions = sqliteTable(
  "web_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    csrfToken: text("csrf_token").notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    /** Absolute end (ms): a session never outlives it, however active. */
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("web_sessions_user").on(t.userId)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    /** JSON array of scope strings. */
    scopes: text("scopes", { mode: "json" }).$type<Scope[]>().notNull(),
    /** Hex SHA-256 of the whole key: keys are high-entropy, so a plain hash is enough. */
    keyHash: text("key_hash").notNull(),
    /** Last four characters, so a person can tell keys apart in a listing. */
    keyHint: text("key_hint").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_unique").on(t.keyHash), index("api_keys_user").on(t.userId)],
);

/** Locally minted access tokens revoked before they expire (admin token revoke), by jti. */
export const revokedTokens = sqliteTable(
  "revoked_tokens",
  {
    jti: text("jti").primaryKey(),
    /** The token's own exp (ms): past it the token is refused anyway and the row can go. */
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at").notNull(),
  },
  (t) => [index("revoked_tokens_expires").on(t.expiresAt)],
);

/** A user of the firm's identity provider, known by issuer and subject once first seen with a verified email. */
export const externalIdentities = sqliteTable(
  "external_identities",
  {
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] }), index("external_identities_user").on(t.userId)],
);

/**
 * One-time sign-in links an administrator made (admin user create --link, admin user link, the
 * console): the link carries a random token, only its SHA-256 is kept; it is used once (the row
 * goes) and expires (24 h by default). Opening it lets the person set a password and signs them in.
 */
export const signInLinks = sqliteTable(
  "sign_in_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sign_in_links_user").on(t.userId)],
);
