// The PostgreSQL twin of table.ts, checked by src/db/schema-parity.test.ts (stores query through table.ts).
import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";

export const oauthClients = pgTable("oauth_clients", {
  clientId: text("client_id").primaryKey(),
  kind: text("kind", { enum: ["cimd", "dcr"] }).notNull(),
  name: text("name").notNull(),
  redirectUris: text("redirect_uris").$type<string[]>().notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  fetchedAt: bigint("fetched_at", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }),
});

export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    clientId: text("client_id").notNull(),
    clientName: text("client_name").notNull(),
    scopes: text("scopes").$type<string[]>().notNull(),
    resource: text("resource").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    lastUsedAt: bigint("last_used_at", { mode: "number" }),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("oauth_grants_user_idx").on(t.userId)],
);

export const oauthCodes = pgTable(
  "oauth_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
    usedAt: bigint("used_at", { mode: "number" }),
  },
  (t) => [index("oauth_codes_user_idx").on(t.userId)],
);

export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    generation: bigint("generation", { mode: "number" }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
    usedAt: bigint("used_at", { mode: "number" }),
  },
  (t) => [index("oauth_refresh_tokens_grant_idx").on(t.grantId), index("oauth_refresh_tokens_user_idx").on(t.userId)],
);
