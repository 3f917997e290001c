import { and, desc, eq, isNull } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { oauthClients, oauthCodes, oauthGrants, oauthRefreshTokens } from "./table.ts";

export type ClientRow = typeof oauthClients.$inferSelect;
export type GrantRow = typeof oauthGrants.$inferSelect;
export type CodeRow = typeof oauthCodes.$inferSelect;

export function findClient(c: Conn, clientId: string): Promise<ClientRow | undefined> {
  return run(c, async (q) => (await q.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1))[0]);
}

/** A client's row, written anew (a CIMD document fetched again replaces what was cached). */
export function saveClient(c: Conn, client: ClientRow): Promise<void> {
  return run(c, async (q) => {
    const { clientId, ...rest } = client;
    await q.insert(oauthClients).values(client).onConflictDoUpdate({ target: oauthClients.clientId, set: { ...rest, createdAt: undefined } });
  });
}

/** Consent given: the grant and its first code, in one transaction. */
export function insertGrantWithCode(c: Conn, grant: GrantRow, code: CodeRow): Promise<void> {
  return runTx(c, async (q) => {
    await q.insert(oauthGrants).values(grant);
    await q.insert(oauthCodes).values(code);
  });
}

/** Revokes a live grant; `userId` limits it to that account's. False: no such live grant. */
async function revokeGrantIn(q: Queryable, grantId: string, now: number, userId?: string): Promise<boolean> {
  const revoked = await q
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt), userId === undefined ? undefined : eq(oauthGrants.userId, userId)))
    .returning({ id: oauthGrants.id });
  return revoked.length > 0;
}

async function grantIn(q: Queryable, grantId: string): Promise<GrantRow | undefined> {
  return (await q.select().from(oauthGrants).where(eq(oauthGrants.id, grantId)).limit(1))[0];
}

/** A code or refresh token presented after its use: its grant is revoked (and answered, for the audit). */
async function spentTwice(q: Queryable, grantId: string, now: number): Promise<GrantRow> {
  await revokeGrantIn(q, grantId, now);
  return (await grantIn(q, grantId))!;
}

export type RedeemOutcome =
  | { outcome: "issued"; grant: GrantRow; code: CodeRow }
  | { outcome: "unknown" | "expired" | "refused" | "revoked" }
  | { outcome: "replayed"; grant: GrantRow };

/**
 * Exchanges a code, single use: the code is marked used by a conditional UPDATE (atomic on both
 * dialects), whatever the outcome, so a code tried with a wrong verifier is spent too. A code
 * already used is a replay: its grant is revoked. `refuse` checks the request against the code
 * (PKCE, redirect_uri, client, resource); `refreshHash` is the first refresh token's SHA-256.
 */
export function redeemCode(
  c: Conn,
  codeHash: string,
  now: number,
  refuse: (code: CodeRow, grant: GrantRow) => boolean,
  refresh: { hash: string; expiresAt: number },
): Promise<RedeemOutcome> {
  return runTx(c, async (q): Promise<RedeemOutcome> => {
    const [code] = await q
      .update(oauthCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
      .returning();
    if (!code) {
      const [used] = await q.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1);
      return used ? { outcome: "replayed", grant: await spentTwice(q, used.grantId, now) } : { outcome: "unknown" };
    }
    const grant = await grantIn(q, code.grantId);
    if (code.expiresAt <= now) return { outcome: "expired" };
    if (!grant || grant.revokedAt !== null) return { outcome: "revoked" };
    if (refuse(code, grant)) return { outcome: "refused" };
    await q.insert(oauthRefreshTokens).values({ tokenHash: refresh.hash, grantId: grant.id, userId: grant.userId, generation: 0, createdAt: now, expiresAt: refresh.expiresAt });
    await q.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, grant.id));
    return { outcome: "issued", grant, code };
  });
}

export type RotateOutcome =
  | { outcome: "rotated"; grant: GrantRow; generation: number }
  | { outcome: "unknown" | "expired" | "revoked" | "refused" }
  | { outcome: "reused"; grant: GrantRow };

/**
 * Rotates a refresh token: the presented one is marked used (conditional UPDATE) and its successor
 * stored. A token presented again after its use revokes the whole grant (reuse detection: either
 * the client or a thief holds a stolen copy, and the server cannot tell which).
 */
export function rotateRefreshToken(
  c: Conn,
  tokenHash: string,
  now: number,
  refuse: (grant: GrantRow) => boolean,
  next: { hash: string; expiresAt: number },
): Promise<RotateOutcome> {
  return runTx(c, async (q): Promise<RotateOutcome> => {
    const [token] = await q
      .update(oauthRefreshTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthRefreshTokens.tokenHash, tokenHash), isNull(oauthRefreshTokens.usedAt)))
      .returning();
    if (!token) {
      const [used] = await q.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.tokenHash, tokenHash)).limit(1);
      return used ? { outcome: "reused", grant: await spentTwice(q, used.grantId, now) } : { outcome: "unknown" };
    }
    const grant = await grantIn(q, token.grantId);
    if (!grant || grant.revokedAt !== null) return { outcome: "revoked" };
    if (token.expiresAt <= now) return { outcome: "expired" };
    if (refuse(grant)) return { outcome: "refused" };
    const generation = token.generation + 1;
    await q.insert(oauthRefreshTokens).values({ tokenHash: next.hash, grantId: grant.id, userId: grant.userId, generation, createdAt: now, expiresAt: next.expiresAt });
    await q.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, grant.id));
    return { outcome: "rotated", grant, generation };
  });
}

/** The grant a refresh token belongs to (RFC 7009 revocation), used or not. */
export function grantOfRefreshToken(c: Conn, tokenHash: string): Promise<GrantRow | undefined> {
  return run(c, async (q) => {
    const [found] = await q
      .select({ grant: oauthGrants })
      .from(oauthRefreshTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
      .where(eq(oauthRefreshTokens.tokenHash, tokenHash))
      .limit(1);
    return found?.grant;
  });
}

export function findGrant(c: Conn, grantId: string): Promise<GrantRow | undefined> {
  return run(c, (q) => grantIn(q, grantId));
}

/** Revokes a grant; `userId` limits it to that account's (another account's id: false). */
export function revokeGrant(c: Conn, grantId: string, now: number, userId?: string): Promise<boolean> {
  return run(c, (q) => revokeGrantIn(q, grantId, now, userId));
}

/** The account's live grants, newest first. */
export function listLiveGrants(c: Conn, userId: string): Promise<GrantRow[]> {
  return run(c, (q) =>
    q
      .select()
      .from(oauthGrants)
      .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)))
      .orderBy(desc(oauthGrants.createdAt), desc(oauthGrants.id)),
  );
}

/** Whether a grant exists and is not revoked (the authenticator, through oauth/app.ts, with a cache). */
export function grantIsLive(c: Conn, grantId: string): Promise<boolean> {
  return run(c, async (q) => {
    const [found] = await q.select({ revokedAt: oauthGrants.revokedAt }).from(oauthGrants).where(eq(oauthGrants.id, grantId)).limit(1);
    return found !== undefined && found.revokedAt === null;
  });
}

/** Advisory: the grant's last use (Connected apps), written at most once a minute by the caller. */
export function touchGrant(c: Conn, grantId: string, now: number): Promise<void> {
  return run(c, async (q) => {
    await q.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, grantId));
  });
}
