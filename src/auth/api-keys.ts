import { and, eq, isNull, sql } from "drizzle-orm";
import { timingSafeEqual } from "node:crypto";
import type { Db } from "../db/client.ts";
import { randomBase62, randomId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import type { Scope } from "./scopes.ts";
import { apiKeys, users } from "./table.ts";

export const API_KEY_PREFIX = "vb_live_";
const KEY_RANDOM_LENGTH = 40; // about 238 bits of entropy

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function hashApiKey(key: string): string {
  return new Bun.CryptoHasher("sha256").update(key).digest("hex");
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** Creates a key and returns its plaintext, which is never stored and cannot be shown again. */
export function createApiKey(
  db: Db,
  input: { userId: string; name: string; scopes: Scope[] },
  now = Date.now(),
): { row: ApiKeyRow; key: string } {
  const key = API_KEY_PREFIX + randomBase62(KEY_RANDOM_LENGTH);
  const row: ApiKeyRow = {
    id: randomId("key", 16),
    userId: input.userId,
    name: input.name,
    scopes: JSON.stringify(input.scopes),
    keyHash: hashApiKey(key),
    keyHint: key.slice(-4),
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  db.insert(apiKeys).values(row).run();
  return { row, key };
}

export function listApiKeys(db: Db, userId?: string): ApiKeyRow[] {
  const query = db.select().from(apiKeys);
  return (userId ? query.where(eq(apiKeys.userId, userId)) : query).orderBy(apiKeys.createdAt).all();
}

/** Marks a key revoked; answers false when no such unrevoked key exists. */
export function revokeApiKey(db: Db, id: string, now = Date.now()): boolean {
  const revoked = db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .all();
  return revoked.length > 0;
}

export function renderApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    object: "api_key",
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    key_hint: `${API_KEY_PREFIX}…${row.keyHint}`,
    user_id: row.userId,
    created_at: toRfc3339(row.createdAt),
    last_used_at: row.lastUsedAt === null ? null : toRfc3339(row.lastUsedAt),
    revoked_at: row.revokedAt === null ? null : toRfc3339(row.revokedAt),
  };
}

export interface ApiKeyMatch {
  key: ApiKeyRow;
  user: typeof users.$inferSelect;
}

/**
 * Looks a presented key up by its hash on the request hot path: one prepared statement, then a
 * constant-time comparison of the stored and computed hashes.
 */
export function createApiKeyLookup(db: Db) {
  const statement = db
    .select({ key: apiKeys, user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(eq(apiKeys.keyHash, sql.placeholder("hash")))
    .prepare();
  const touch = db
    .update(apiKeys)
    .set({ lastUsedAt: sql.placeholder("now") as unknown as number })
    .where(eq(apiKeys.id, sql.placeholder("id")))
    .prepare();

  return {
    find(presented: string): ApiKeyMatch | undefined {
      const hash = hashApiKey(presented);
      const match = statement.get({ hash }) as ApiKeyMatch | undefined;
      if (!match) return undefined;
      const equal = timingSafeEqual(Buffer.from(match.key.keyHash, "hex"), Buffer.from(hash, "hex"));
      return equal ? match : undefined;
    },
    touch(id: string, now: number): void {
      touch.run({ id, now });
    },
  };
}
