import { eq, lt, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { revokedTokens } from "./table.ts";

/**
 * Denies a locally minted token by its jti until `expiresAt` (ms), when the token is refused for
 * its exp anyway. Revoking again keeps the later expiry. Answers whether the jti was new.
 */
export function revokeToken(db: Queryable, jti: string, expiresAt: number, now: number): boolean {
  const known = isTokenRevoked(db, jti);
  db.insert(revokedTokens)
    .values({ jti, expiresAt, revokedAt: now })
    .onConflictDoUpdate({ target: revokedTokens.jti, set: { expiresAt: sql`max(${revokedTokens.expiresAt}, excluded.expires_at)` } })
    .run();
  return !known;
}

/** One primary-key lookup per request that presents a local token. */
export function isTokenRevoked(db: Queryable, jti: string): boolean {
  return db.select({ jti: revokedTokens.jti }).from(revokedTokens).where(eq(revokedTokens.jti, jti)).get() !== undefined;
}

/** Drops revocations whose token has expired anyway (the retention sweep); answers how many. */
export function purgeExpiredRevocations(db: Queryable, now: number): number {
  return db.delete(revokedTokens).where(lt(revokedTokens.expiresAt, now)).returning({ jti: revokedTokens.jti }).all().length;
}
