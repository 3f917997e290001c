import { eq, lt, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { revokedTokens } from "./table.ts";

/** The revoked-tokens store: locally minted access tokens denied by jti before they expire. */

/**
 * Denies a locally minted token by its jti until `expiresAt` (ms), when the token is refused for
 * its exp anyway. Revoking again keeps the later expiry. Answers whether the jti was new.
 */
export function revokeToken(c: Conn, jti: string, expiresAt: number, now: number): Promise<boolean> {
  return run(c, (q) => {
    const known = revoked(q, jti);
    q.insert(revokedTokens)
      .values({ jti, expiresAt, revokedAt: now })
      .onConflictDoUpdate({ target: revokedTokens.jti, set: { expiresAt: sql`max(${revokedTokens.expiresAt}, excluded.expires_at)` } })
      .run();
    return !known;
  });
}

/** One primary-key lookup per request that presents a local token. */
export function isTokenRevoked(c: Conn, jti: string): Promise<boolean> {
  return run(c, (q) => revoked(q, jti));
}

function revoked(q: Queryable, jti: string): boolean {
  return q.select({ jti: revokedTokens.jti }).from(revokedTokens).where(eq(revokedTokens.jti, jti)).get() !== undefined;
}

/** Drops revocations whose token has expired anyway (the retention sweep); answers how many. */
export function purgeExpiredRevocations(c: Conn, now: number): Promise<number> {
  return run(c, (q) => q.delete(revokedTokens).where(lt(revokedTokens.expiresAt, now)).returning({ jti: revokedTokens.jti }).all().length);
}
