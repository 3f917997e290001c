import { and, asc, count, eq, isNotNull, isNull, max, ne } from "drizzle-orm";
import { users, webSessions } from "../auth/table.ts";
import type { Role } from "../auth/users.ts";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { lockNamed } from "../db/sql.ts";
import type { Plan } from "../auth/plans.ts";

/** The users as the administration console and `verbatim admin` see them: role and state included. */
export interface ManagedUser {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  role: Role;
  createdAt: number;
  /** When the user's newest live web session began: the last sign-in the service still knows of. */
  lastSignInAt: number | null;
  disabledAt: number | null;
}

/** No other admin would be left able to act: the change was refused. */
export class LastAdmin extends Error {
  constructor() {
    super("this is the last administrator: make another user admin first");
    this.name = "LastAdmin";
  }
}

const managedColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  plan: users.plan,
  role: users.role,
  createdAt: users.createdAt,
  disabledAt: users.disabledAt,
};

/** Every user not deleted, oldest first, with the start of their newest live session. */
export function listManagedUsers(c: Conn, bound: number): Promise<ManagedUser[]> {
  return run(c, async (q) => {
    const found = await q.select(managedColumns).from(users).where(isNull(users.deletedAt)).orderBy(asc(users.createdAt), asc(users.id)).limit(bound);
    const signIns = await q.select({ userId: webSessions.userId, at: max(webSessions.createdAt) }).from(webSessions).groupBy(webSessions.userId);
    const lastOf = new Map(signIns.map((s) => [s.userId, s.at === null ? null : Number(s.at)]));
    return found.map((u) => ({ ...u, lastSignInAt: lastOf.get(u.id) ?? null }));
  });
}

export function getManagedUser(c: Conn, userId: string): Promise<ManagedUser | undefined> {
  return run(c, async (q) => {
    const [found] = await q.select(managedColumns).from(users).where(and(eq(users.id, userId), isNull(users.deletedAt))).limit(1);
    if (!found) return undefined;
    const [signIn] = await q.select({ at: max(webSessions.createdAt) }).from(webSessions).where(eq(webSessions.userId, userId));
    return { ...found, lastSignInAt: signIn?.at == null ? null : Number(signIn.at) };
  });
}

/** Whether this user is an administrator who may act now (not disabled, not deleted). */
export function isActiveAdmin(c: Conn, userId: string): Promise<boolean> {
  return run(c, async (q) => {
    const [found] = await q
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, userId), eq(users.role, "admin"), isNull(users.deletedAt), isNull(users.disabledAt)))
      .limit(1);
    return found !== undefined;
  });
}

/** Administrators able to act, other than `userId`. */
async function otherActiveAdmins(q: Queryable, userId: string): Promise<number> {
  const [found] = await q
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), isNull(users.deletedAt), isNull(users.disabledAt), ne(users.id, userId)));
  return found?.n ?? 0;
}

/**
 * Refuses (LastAdmin) a change that would take `userId`'s administrator powers away (demoted,
 * disabled, deleted) when no other active administrator remains. Call it inside the transaction
 * that makes the change: the count runs under one lock (BEGIN IMMEDIATE; an advisory lock on
 * PostgreSQL), so two admins demoting each other at once cannot both pass.
 */
export function assertOtherAdminRemains(c: Conn, userId: string): Promise<void> {
  return run(c, async (q) => {
    await lockNamed(q, "administrators");
    const [target] = await q.select({ role: users.role, disabledAt: users.disabledAt }).from(users).where(eq(users.id, userId)).limit(1);
    if (target?.role === "admin" && target.disabledAt === null && (await otherActiveAdmins(q, userId)) === 0) throw new LastAdmin();
  });
}

export function setRole(c: Conn, userId: string, role: Role): Promise<void> {
  return run(c, async (q) => {
    await q.update(users).set({ role }).where(eq(users.id, userId));
  });
}

/** Disables (a time) or enables (null) a user; answers whether the state changed. */
export function setDisabled(c: Conn, userId: string, disabledAt: number | null): Promise<boolean> {
  return run(c, async (q) => {
    const changed = await q
      .update(users)
      .set({ disabledAt })
      .where(and(eq(users.id, userId), isNull(users.deletedAt), disabledAt === null ? isNotNull(users.disabledAt) : isNull(users.disabledAt)))
      .returning({ id: users.id });
    return changed.length > 0;
  });
}

/** Clears a user's web app password (a reset sign-in: the new link sets one). */
export function clearPassword(c: Conn, userId: string): Promise<void> {
  return run(c, async (q) => {
    await q.update(users).set({ passwordHash: null }).where(eq(users.id, userId));
  });
}
