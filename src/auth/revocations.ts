import { lt } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { revokedTokens } from "./table.ts";

/** Drops revocations whose token has expired anyway (the retention sweep); answers how many. */
export function purgeExpiredRevocations(db: Queryable, now: number): number {
  return db.delete(revokedTokens).where(lt(revokedTokens.expiresAt, now)).returning({ jti: revokedTokens.jti }).all().length;
}
