import { toRfc3339 } from "../lib/time.ts";
import { apiKeys } from "./table.ts";

// API keys: their form, hint and rendering, and the refusal when an account holds too many. The
// keys table is read and written by auth/api-key-store.ts.

export const API_KEY_PREFIX = "vb_live_";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function hashApiKey(key: string): string {
  return new Bun.CryptoHasher("sha256").update(key).digest("hex");
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/**
 * Active (unrevoked) keys one account may hold (--max-api-keys). The request rate limit is per
 * credential (SPEC 8), so each key brings its own budget: the bound on keys is what keeps an
 * account's total at most this many times its plan's rate.
 */
export const DEFAULT_MAX_ACTIVE_API_KEYS = 20;

/** The account already holds its most active keys: nothing was created. */
export class ApiKeyLimitReached extends Error {
  constructor(readonly max: number) {
    super(`This account already has ${max} active API keys, the most it may hold. Revoke one to create another.`);
    this.name = "ApiKeyLimitReached";
  }
}

/** What tells keys apart in a listing: the prefix and the key's last four characters. */
export function apiKeyHint(row: Pick<ApiKeyRow, "keyHint">): string {
  return `${API_KEY_PREFIX}…${row.keyHint}`;
}

export function renderApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    object: "api_key",
    name: row.name,
    scopes: row.scopes,
    key_hint: apiKeyHint(row),
    user_id: row.userId,
    created_at: toRfc3339(row.createdAt),
    last_used_at: row.lastUsedAt === null ? null : toRfc3339(row.lastUsedAt),
    revoked_at: row.revokedAt === null ? null : toRfc3339(row.revokedAt),
  };
}
