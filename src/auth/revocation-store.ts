import { eq, lt, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { greatest } from "../db/sql.ts";
import { revokedTokens } from "./table.ts";

/** The revoked-tokens store: locally minted access tokens denied by jti before they expire. */

/**
 * Denies a locally minted token by its jti until `expiresAt` (ms), when the token is refused for
 * its exp anyway. Revoking again keeps the later expiry. Answers whether the jti was new.
 */
export function revokeToken(c: Conn, jti: string, expiresAt: number, now: number): Promise<boolean> {
  return run(c, async (q) => {
    const known = await revoked(q, jti);
    await q
      .insert(revokedTokens)
      .values({ jti, expiresAt, revokedAt: now })
      .onConflictDoUpdate({ target: revokedTokens.jti, set: { expiresAt: greatest(revokedTokens.expiresAt, sql`excluded.expires_at`) } });
    return !known;
  });
}

/** One primary-key lookup per request that presents a local token. */
export function isTokenRevoked(c: Conn, jti: string): Promise<boolean> {
  return run(c, (q) => revoked(q, jti));
}

async function revoked(q: Queryable, jti: string): Promise<boolean> {
  return (await q.select({ jti: revokedTokens.jti }).from(revokedTokens).where(eq(revokedTokens.jti, jti)).limit(1)).length > 0;
}

/** Drops revocations whose token has expired anyway (the retention sweep); answers how many. */
export function purgeExpiredRevocations(c: Conn, now: number): Promise<number> {
  return run(c, async (q) => (await q.delete(revokedTokens).where(lt(revokedTokens.expiresAt, now)).returning({ jti: revokedTokens.jti })).length);
}
