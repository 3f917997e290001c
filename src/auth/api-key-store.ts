import { and, count, eq, isNull } from "drizzle-orm";
import { timingSafeEqual } from "node:crypto";
import type { Queryable } from "../db/client.ts";
import { run, runTx, sqliteOf, type Conn, type DbConn } from "../db/conn.ts";
import { randomBase62, randomId } from "../lib/ids.ts";
import { API_KEY_PREFIX, ApiKeyLimitReached, DEFAULT_MAX_ACTIVE_API_KEYS, hashApiKey, type ApiKeyRow } from "./api-keys.ts";
import { parseStoredScopes, type Scope } from "./scopes.ts";
import type { User } from "./users.ts";
import { apiKeys } from "./table.ts";

/** The API keys store. */

const KEY_RANDOM_LENGTH = 40; // about 238 bits of entropy

function countActiveApiKeys(q: Queryable, userId: string): number {
  return q.select({ n: count() }).from(apiKeys).where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt))).get()?.n ?? 0;
}

/**
 * Creates a key and returns its plaintext, which is never stored and cannot be shown again.
 * Refused (ApiKeyLimitReached) when the account holds `maxActive` unrevoked keys already: counted
 * and inserted in one immediate transaction, so two creations at once cannot both pass the count.
 */
export function createApiKey(
  c: Conn,
  input: { userId: string; name: string; scopes: Scope[] },
  now = Date.now(),
  maxActive = DEFAULT_MAX_ACTIVE_API_KEYS,
): Promise<{ row: ApiKeyRow; key: string }> {
  const key = API_KEY_PREFIX + randomBase62(KEY_RANDOM_LENGTH);
  const row: ApiKeyRow = {
    id: randomId("key", 16),
    userId: input.userId,
    name: input.name,
    scopes: input.scopes,
    keyHash: hashApiKey(key),
    keyHint: key.slice(-4),
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  return runTx(c, (q) => {
    if (countActiveApiKeys(q, input.userId) >= maxActive) throw new ApiKeyLimitReached(maxActive);
    q.insert(apiKeys).values(row).run();
    return { row, key };
  });
}

/** Every key (of one user when `userId` is given), oldest first. */
export function listApiKeys(c: Conn, userId?: string): Promise<ApiKeyRow[]> {
  return run(c, (q) => {
    const query = q.select().from(apiKeys);
    return (userId ? query.where(eq(apiKeys.userId, userId)) : query).orderBy(apiKeys.createdAt).all();
  });
}

export function getApiKey(c: Conn, id: string): Promise<ApiKeyRow | undefined> {
  return run(c, (q) => q.select().from(apiKeys).where(eq(apiKeys.id, id)).get());
}

/** Marks a key revoked; answers false when no such unrevoked key exists. */
export function revokeApiKey(c: Conn, id: string, now = Date.now()): Promise<boolean> {
  return run(
    c,
    (q) =>
      q
        .update(apiKeys)
        .set({ revokedAt: now })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id })
        .all().length > 0,
  );
}

export interface ApiKeyMatch {
  key: ApiKeyRow;
  user: User;
}

/**
 * Looks a presented key up by its hash on the request hot path, then compares the stored and
 * computed hashes in constant time. Plain prepared statements on bun:sqlite, two single-row
 * index lookups: measured at ~6 µs against ~30 µs for the same join through drizzle's mapper,
 * and about 12 µs inside the running server; a key seen since the database last changed is
 * answered from memory (one PRAGMA data_version read), synchronously: the API's hot path (GET
 * /v1/me) then needs no promise. A key not in memory is read in its turn on the connection (`run`:
 * after any transaction open on it), so the answer is then a promise.
 */
export function createApiKeyLookup(conn: DbConn) {
  const sqlite = sqliteOf(conn);
  const keyByHash = sqlite.prepare<RawKey, [string]>(
    "SELECT id, user_id, name, scopes, key_hash, key_hint, created_at, last_used_at, revoked_at FROM api_keys WHERE key_hash = ?",
  );
  const userById = sqlite.prepare<RawUser, [string]>("SELECT id, email, name, plan, created_at FROM users WHERE id = ? AND deleted_at IS NULL");
  const touch = sqlite.prepare<unknown, [number, string]>("UPDATE api_keys SET last_used_at = ? WHERE id = ?");
  // Valid keys seen, while the database has not changed. PRAGMA data_version moves whenever another
  // connection commits (the admin CLI revoking a key or moving a user to another plan, the delivery
  // thread), so a change made anywhere else empties the cache; a change made on this connection (the
  // web app's Settings creating or revoking a key) calls forget(). The version is read at most once a millisecond (a read costs a few µs of WAL
  // locking), so a revocation takes effect within 1 ms of its commit. Only valid keys are kept,
  // at most MAX_CACHED.
  const dataVersion = sqlite.prepare<{ data_version: number }, []>("PRAGMA data_version");
  const cache = new Map<string, ApiKeyMatch>();
  let cachedAt = -1;
  let checkedAt = -Infinity;
  const MAX_CACHED = 10_000;
  const RECHECK_MS = 1;

  const lookup = (presented: string): ApiKeyMatch | undefined => {
    const hash = hashApiKey(presented);
    const key = keyByHash.get(hash);
    if (!key) return undefined;
    if (!timingSafeEqual(Buffer.from(key.key_hash, "hex"), Buffer.from(hash, "hex"))) return undefined;
    const user = userById.get(key.user_id);
    if (!user) return undefined;
    return {
      key: {
        id: key.id,
        userId: key.user_id,
        name: key.name,
        scopes: parseStoredScopes(key.scopes),
        keyHash: key.key_hash,
        keyHint: key.key_hint,
        createdAt: key.created_at,
        lastUsedAt: key.last_used_at,
        revokedAt: key.revoked_at,
      },
      user: { id: user.id, email: user.email, name: user.name, plan: user.plan, createdAt: user.created_at },
    };
  };

  const remember = (presented: string, found: ApiKeyMatch | undefined) => {
    if (found) {
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(presented, found);
    }
    return found;
  };

  return {
    /** From memory at once when this key was seen since the database last changed, else in a promise. */
    find(presented: string): ApiKeyMatch | undefined | Promise<ApiKeyMatch | undefined> {
      const now = performance.now();
      if (now - checkedAt >= RECHECK_MS) {
        checkedAt = now;
        const version = dataVersion.get()!.data_version;
        if (version !== cachedAt) {
          cache.clear();
          cachedAt = version;
        }
      }
      const cached = cache.get(presented);
      if (cached) return cached;
      return run(conn, () => remember(presented, lookup(presented)));
    },
    /** Records when a key was last used (at most once a minute per key, the caller decides). */
    touch(id: string, now: number): Promise<void> {
      return run(conn, () => {
        touch.run(now, id);
      });
    },
    /** Keys or users were changed on this process's own connection, which data_version does not see. */
    forget(): void {
      cache.clear();
    },
  };
}

interface RawKey {
  id: string;
  user_id: string;
  name: string;
  scopes: string;
  key_hash: string;
  key_hint: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

interface RawUser {
  id: string;
  email: string;
  name: string | null;
  plan: "free" | "standard" | "pro";
  created_at: number;
}
