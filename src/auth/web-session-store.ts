import { and, eq, gt, isNull, lt, or } from "drizzle-orm";
import { createHash } from "node:crypto";
import { run, type Conn } from "../db/conn.ts";
import { randomBase62 } from "../lib/ids.ts";
import { users, webSessions } from "./table.ts";
import { userColumns } from "./user-store.ts";
import { SESSION_IDLE_MS, SESSION_MAX_MS, type WebSession } from "./web-sessions.ts";

/** The web app's sessions store. */

// last_seen_at is written at most this often: a page view must not always be a database write.
const TOUCH_INTERVAL_MS = 60_000;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Starts a session: the token goes in the cookie, only its hash is stored. */
export function createWebSession(c: Conn, userId: string, now: number): Promise<{ token: string; csrfToken: string; tokenHash: string }> {
  const token = `vs_${randomBase62(43)}`;
  const csrfToken = randomBase62(32);
  const tokenHash = hashToken(token);
  return run(c, async (q) => {
    await q.insert(webSessions).values({ tokenHash, userId, csrfToken, createdAt: now, lastSeenAt: now, expiresAt: now + SESSION_MAX_MS });
    return { token, csrfToken, tokenHash };
  });
}

/** The live session a cookie token names, or undefined (unknown, idle too long, past its end). */
export async function findWebSession(c: Conn, token: string, now: number): Promise<WebSession | undefined> {
  if (!/^vs_[A-Za-z0-9]{43}$/.test(token)) return undefined;
  const tokenHash = hashToken(token);
  return run(c, async (db) => {
    // One read: the session with its user and the user's language, which every page needs.
    const [row] = await db
      .select({
        csrfToken: webSessions.csrfToken,
        lastSeenAt: webSessions.lastSeenAt,
        user: userColumns,
        locale: users.locale,
        role: users.role,
      })
      .from(webSessions)
      .innerJoin(users, eq(users.id, webSessions.userId))
      .where(and(eq(webSessions.tokenHash, tokenHash), gt(webSessions.expiresAt, now), gt(webSessions.lastSeenAt, now - SESSION_IDLE_MS), isNull(users.deletedAt), isNull(users.disabledAt)))
      .limit(1);
    if (!row) return undefined;
    if (now - row.lastSeenAt >= TOUCH_INTERVAL_MS) await db.update(webSessions).set({ lastSeenAt: now }).where(eq(webSessions.tokenHash, tokenHash));
    return { user: row.user, locale: row.locale, role: row.role, csrfToken: row.csrfToken, tokenHash };
  });
}

export function endWebSession(c: Conn, tokenHash: string): Promise<void> {
  return run(c, async (q) => {
    await q.delete(webSessions).where(eq(webSessions.tokenHash, tokenHash));
  });
}

/** Ends the session a cookie token names, if any (a token a browser brings to the sign-in form). */
export function endWebSessionOfToken(c: Conn, token: string): Promise<void> {
  return endWebSession(c, hashToken(token));
}

/** Signs a user out everywhere (every browser, every device). */
export function endAllWebSessions(c: Conn, userId: string): Promise<number> {
  return run(c, async (q) => (await q.delete(webSessions).where(eq(webSessions.userId, userId)).returning({ id: webSessions.tokenHash })).length);
}

/** Removes sessions past their end or idle too long (the retention sweep). */
export function purgeExpiredWebSessions(c: Conn, now: number): Promise<number> {
  return run(
    c,
    async (q) =>
      (
        await q
          .delete(webSessions)
          .where(or(lt(webSessions.expiresAt, now), lt(webSessions.lastSeenAt, now - SESSION_IDLE_MS)))
          .returning({ id: webSessions.tokenHash })
      ).length,
  );
}
