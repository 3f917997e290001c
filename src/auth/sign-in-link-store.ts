import { and, eq, gt, lt, or } from "drizzle-orm";
import { createHash } from "node:crypto";
import { run, type Conn } from "../db/conn.ts";
import { randomBase62 } from "../lib/ids.ts";
import { signInLinks } from "./table.ts";

/** The one-time sign-in links store (auth/table.ts, signInLinks): only a token's SHA-256 is kept. */

/** How long a sign-in link works unless the administrator says otherwise. */
export const SIGN_IN_LINK_TTL_MS = 24 * 3600_000;

/** The token's form in a link: a prefix and 43 base62 characters (about 256 bits). */
const TOKEN_FORM = /^vl_[A-Za-z0-9]{43}$/;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function isSignInLinkToken(token: string): boolean {
  return TOKEN_FORM.test(token);
}

/**
 * A new link for a user: the user's earlier links stop working (one link at a time) and expired
 * links of anyone are removed on the way. Answers the token, which is never stored.
 */
export function createSignInLink(c: Conn, userId: string, now: number, ttlMs = SIGN_IN_LINK_TTL_MS): Promise<string> {
  const token = `vl_${randomBase62(43)}`;
  return run(c, async (q) => {
    await q.delete(signInLinks).where(or(eq(signInLinks.userId, userId), lt(signInLinks.expiresAt, now)));
    await q.insert(signInLinks).values({ tokenHash: hashToken(token), userId, createdAt: now, expiresAt: now + ttlMs });
    return token;
  });
}

/** The user a live link names, without using it (the page that asks for a password), or undefined. */
export function peekSignInLink(c: Conn, token: string, now: number): Promise<string | undefined> {
  if (!isSignInLinkToken(token)) return Promise.resolve(undefined);
  return run(c, async (q) => {
    const [found] = await q
      .select({ userId: signInLinks.userId })
      .from(signInLinks)
      .where(and(eq(signInLinks.tokenHash, hashToken(token)), gt(signInLinks.expiresAt, now)))
      .limit(1);
    return found?.userId;
  });
}

/**
 * Uses a link: its row goes in the same statement that reads it, so of two uses at once (on any
 * nodes) exactly one gets the user; an expired or used link answers undefined.
 */
export function consumeSignInLink(c: Conn, token: string, now: number): Promise<string | undefined> {
  if (!isSignInLinkToken(token)) return Promise.resolve(undefined);
  return run(c, async (q) => {
    const [used] = await q
      .delete(signInLinks)
      .where(and(eq(signInLinks.tokenHash, hashToken(token)), gt(signInLinks.expiresAt, now)))
      .returning({ userId: signInLinks.userId });
    return used?.userId;
  });
}

/** Removes every link of a user (the account disabled). */
export function dropSignInLinks(c: Conn, userId: string): Promise<void> {
  return run(c, async (q) => {
    await q.delete(signInLinks).where(eq(signInLinks.userId, userId));
  });
}
