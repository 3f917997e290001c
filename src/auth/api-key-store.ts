import { and, count, eq, isNull } from "drizzle-orm";
import { timingSafeEqual } from "node:crypto";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn, type DbConn, type SqliteConn } from "../db/conn.ts";
import type { PgConn } from "../db/pg-conn.ts";
import { lockAccount } from "../db/sql.ts";
import { randomBase62, randomId } from "../lib/ids.ts";
import { API_KEY_PREFIX, ApiKeyLimitReached, DEFAULT_MAX_ACTIVE_API_KEYS, hashApiKey, type ApiKeyRow } from "./api-keys.ts";
import { parseStoredScopes, type Scope } from "./scopes.ts";
import type { User } from "./users.ts";
import { apiKeys } from "./table.ts";

/** The API keys store. */

const KEY_RANDOM_LENGTH = 40; // about 238 bits of entropy

async function countActiveApiKeys(q: Queryable, userId: string): Promise<number> {
  return (await q.select({ n: count() }).from(apiKeys).where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt))))[0]?.n ?? 0;
}

/**
 * Creates a key and returns its plaintext, which is never stored and cannot be shown again.
 * Refused (ApiKeyLimitReached) when the account holds `maxActive` unrevoked keys already: counted
 * and inserted in one transaction holding the account's lock (BEGIN IMMEDIATE on SQLite,
 * lockAccount on PostgreSQL), so two creations at once, on any nodes, cannot both pass the count.
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
  return runTx(c, async (q) => {
    await lockAccount(q, input.userId);
    if ((await countActiveApiKeys(q, input.userId)) >= maxActive) throw new ApiKeyLimitReached(maxActive);
    await q.insert(apiKeys).values(row);
    return { row, key };
  });
}

/** Every key (of one user when `userId` is given), oldest first. */
export function listApiKeys(c: Conn, userId?: string): Promise<ApiKeyRow[]> {
  return run(c, async (q) => {
    const query = q.select().from(apiKeys);
    return await (userId ? query.where(eq(apiKeys.userId, userId)) : query).orderBy(apiKeys.createdAt);
  });
}

export function getApiKey(c: Conn, id: string): Promise<ApiKeyRow | undefined> {
  return run(c, async (q) => (await q.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1))[0]);
}

/** Marks a key revoked; answers false when no such unrevoked key exists. */
export function revokeApiKey(c: Conn, id: string, now = Date.now()): Promise<boolean> {
  return run(
    c,
    async (q) =>
      (
        await q
          .update(apiKeys)
          .set({ revokedAt: now })
          .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
          .returning({ id: apiKeys.id })
      ).length > 0,
  );
}

export interface ApiKeyMatch {
  key: ApiKeyRow;
  user: User;
}

/** How a request's API key is resolved (auth/authenticate.ts): one per process and connection. */
export interface ApiKeyLookup {
  /** The key and its user, or undefined; at once when answered from memory (SQLite only), else in a promise. */
  find(presented: string): ApiKeyMatch | undefined | Promise<ApiKeyMatch | undefined>;
  /** Records when a key was last used (at most once a minute per key, the caller decides). */
  touch(id: string, now: number): Promise<void>;
  /** Keys or users were changed on this process's own connection, which data_version does not see. */
  forget(): void;
}

/** Looks a presented key up by its hash on the request hot path, on the service's database. */
export function createApiKeyLookup(conn: DbConn): ApiKeyLookup {
  return conn.dialect === "postgres" ? postgresApiKeyLookup(conn) : sqliteApiKeyLookup(conn);
}

/** The stored hash equals the presented key's, compared in constant time (the index found it by value). */
function sameHash(stored: string, computed: string): boolean {
  return timingSafeEqual(Buffer.from(stored, "hex"), Buffer.from(computed, "hex"));
}

/**
 * PostgreSQL: every find reads the database, one indexed join in one round trip, and nothing is
 * cached across requests. Another API node or the admin CLI may revoke a key or move a user to
 * another plan, and no signal as cheap as SQLite's PRAGMA data_version tells this node that the
 * database changed, so a cache could keep answering for a revoked key; a revocation must take
 * effect at once on every node.
 */
function postgresApiKeyLookup(conn: PgConn): ApiKeyLookup {
  return {
    async find(presented) {
      const hash = hashApiKey(presented);
      // A named statement: parsed and planned once per pooled connection, and the row read as
      // is. Through drizzle's builder and mapper the same join cost ~2 ms more per request, which
      // made GET /v1/me 20 times slower than on SQLite (bench/scale.ts).
      const { rows } = await conn.pool.query<RawKey & { user_email: string; user_name: string | null; user_plan: RawUser["plan"]; user_created_at: number }>({
        name: "verbatim_api_key_by_hash",
        text: KEY_AND_USER_BY_HASH,
        values: [hash],
      });
      const row = rows[0];
      if (!row || !sameHash(row.key_hash, hash)) return undefined;
      return matchOf(row, { id: row.user_id, email: row.user_email, name: row.user_name, plan: row.user_plan, created_at: row.user_created_at });
    },
    touch(id, now) {
      return run(conn, async (q) => {
        await q.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, id));
      });
    },
    forget() {},
  };
}

/** The key and its user (not deleted, not disabled: a disabled account's keys are refused until it is enabled) in one indexed join: PostgreSQL's lookup. */
const KEY_AND_USER_BY_HASH = `SELECT k.id, k.user_id, k.name, k.scopes, k.key_hash, k.key_hint, k.created_at, k.last_used_at, k.revoked_at,
  u.email AS user_email, u.name AS user_name, u.plan AS user_plan, u.created_at AS user_created_at
  FROM api_keys k JOIN users u ON u.id = k.user_id AND u.deleted_at IS NULL AND u.disabled_at IS NULL
  WHERE k.key_hash = $1 LIMIT 1`;

/** A stored key row and its user row as the authenticator takes them (both dialects read raw rows). */
function matchOf(key: RawKey, user: RawUser): ApiKeyMatch {
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
}

/**
 * SQLite: plain prepared statements on bun:sqlite, two single-row index lookups, then the stored
 * and computed hashes compared in constant time: measured at ~6 µs against ~30 µs for the same
 * join through drizzle's mapper, and about 12 µs inside the running server; a key seen since the
 * database last changed is answered from memory (one PRAGMA data_version read), synchronously:
 * the API's hot path (GET /v1/me) then needs no promise. A key not in memory is read in its turn
 * on the connection (`run`: after any transaction open on it), so the answer is then a promise.
 */
function sqliteApiKeyLookup(conn: SqliteConn): ApiKeyLookup {
  const sqlite = conn.sqlite;
  const keyByHash = sqlite.prepare<RawKey, [string]>(
    "SELECT id, user_id, name, scopes, key_hash, key_hint, created_at, last_used_at, revoked_at FROM api_keys WHERE key_hash = ?",
  );
  const userById = sqlite.prepare<RawUser, [string]>("SELECT id, email, name, plan, created_at FROM users WHERE id = ? AND deleted_at IS NULL AND disabled_at IS NULL");
  const touch = sqlite.prepare<unknown, [number, string]>("UPDATE api_keys SET last_used_at = ? WHERE id = ?");
  // Valid keys seen, while the database has not changed. PRAGMA data_version moves whenever another
  // connection commits (the admin CLI revoking a key or moving a user to another plan, the delivery
  // thread), so a change made anywhere else empties the cache; a change made on this connection (the
  // web app's Settings creating or revoking a key) calls forget(). The version is read at most once
  // a millisecond (a read costs a few µs of WAL locking), so a revocation takes effect within 1 ms
  // of its commit. Only valid keys are kept, at most MAX_CACHED.
  // Read as values (one row, one column): the same few µs as a row object.
  const dataVersion = sqlite.prepare<unknown, []>("PRAGMA data_version");
  const cache = new Map<string, ApiKeyMatch>();
  let cachedAt = -1;
  let checkedAt = -Infinity;
  const MAX_CACHED = 10_000;
  const RECHECK_MS = 1;

  const lookup = (presented: string): ApiKeyMatch | undefined => {
    const hash = hashApiKey(presented);
    const key = keyByHash.get(hash);
    if (!key) return undefined;
    if (!sameHash(key.key_hash, hash)) return undefined;
    const user = userById.get(key.user_id);
    if (!user) return undefined;
    return matchOf(key, user);
  };

  const remember = (presented: string, found: ApiKeyMatch | undefined) => {
    if (found) {
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(presented, found);
    }
    return found;
  };

  return {
    find(presented) {
      const now = performance.now();
      if (now - checkedAt >= RECHECK_MS) {
        checkedAt = now;
        const version = dataVersion.values()[0]![0] as number;
        if (version !== cachedAt) {
          cache.clear();
          cachedAt = version;
        }
      }
      const cached = cache.get(presented);
      if (cached) return cached;
      return run(conn, () => remember(presented, lookup(presented)));
    },
    touch(id, now) {
      return run(conn, () => {
        touch.run(now, id);
      });
    },
    forget() {
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
