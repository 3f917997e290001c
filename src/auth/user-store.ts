import { and, count, eq, isNull } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import { lockNamed } from "../db/sql.ts";
import { randomId } from "../lib/ids.ts";
import type { Plan } from "./plans.ts";
import { users } from "./table.ts";
import type { Locale, Role, User } from "./users.ts";

/** The users store: what a lookup answers is a User (auth/users.ts), never with the password hash. */

/** The columns of a User: every one but the password hash and the web app language. */
export const userColumns = { id: users.id, email: users.email, name: users.name, plan: users.plan, createdAt: users.createdAt };

// Helpers over a Queryable: called by other domains inside their own transactions (job kinds,
// notifications) and by tests that seed users; everything else uses the store over a Conn below.

export async function createUser(db: Queryable, input: { email: string; name?: string | null; plan: Plan; role?: Role }, now = Date.now()): Promise<User> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(`not an email address: ${input.email}`);
  const taken = new Error(`a user with email ${email} already exists`);
  if (await findUserByEmail(db, email)) throw taken;
  const user: User = { id: randomId("usr", 16), email, name: input.name ?? null, plan: input.plan, createdAt: now };
  // On PostgreSQL another node may create the same email between the check and the insert: the
  // unique index decides, and the loser gets the same refusal.
  if ((await db.insert(users).values({ ...user, role: input.role ?? "user" }).onConflictDoNothing().returning({ id: users.id })).length === 0) throw taken;
  return user;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<User | undefined> {
  const found = await db
    .select(userColumns)
    .from(users)
    .where(and(eq(users.email, email.trim().toLowerCase()), isNull(users.deletedAt)))
    .limit(1);
  return found[0];
}

export async function findUserById(db: Queryable, id: string): Promise<User | undefined> {
  const found = await db
    .select(userColumns)
    .from(users)
    .where(and(eq(users.id, id), isNull(users.deletedAt)))
    .limit(1);
  return found[0];
}

// The async store.

/** Creates a user (refused with an Error when the email is not one, or is taken). */
export function addUser(c: Conn, input: { email: string; name?: string | null; plan: Plan; role?: Role }, now = Date.now()): Promise<User> {
  return run(c, (q) => createUser(q, input, now));
}

/**
 * The first-run admin: created only while the database has no user at all (else null). Nodes
 * starting at once on a fresh PostgreSQL database each try: the count and the insert run in one
 * transaction under one lock (BEGIN IMMEDIATE on SQLite, an advisory lock on PostgreSQL), so one
 * creates it and the others see it, instead of failing their start on the taken email.
 */
export function addFirstUser(c: Conn, input: { email: string; name?: string | null; plan: Plan; role?: Role }, now = Date.now()): Promise<User | null> {
  return runTx(c, async (q) => {
    await lockNamed(q, "first-user");
    if (((await q.select({ n: count() }).from(users))[0]?.n ?? 0) > 0) return null;
    return createUser(q, input, now);
  });
}

/**
 * Whether a user may act now: not disabled by an administrator (nor deleted). Asked where a person
 * proves who they are (password, single sign-on, an access token); sessions and API keys filter
 * disabled users in their own lookups.
 */
export async function isUserActive(db: Queryable, userId: string): Promise<boolean> {
  const [found] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), isNull(users.deletedAt), isNull(users.disabledAt)))
    .limit(1);
  return found !== undefined;
}

export function userIsActive(c: Conn, userId: string): Promise<boolean> {
  return run(c, (q) => isUserActive(q, userId));
}

export function getUserByEmail(c: Conn, email: string): Promise<User | undefined> {
  return run(c, (q) => findUserByEmail(q, email));
}

export function getUserById(c: Conn, id: string): Promise<User | undefined> {
  return run(c, (q) => findUserById(q, id));
}

/** The stored Argon2id hash of a user's web app password, or null when the user has none. */
export function passwordHashOf(c: Conn, userId: string): Promise<string | null> {
  return run(c, async (q) => (await q.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId)).limit(1))[0]?.hash ?? null);
}

export function setPasswordHash(c: Conn, userId: string, hash: string): Promise<void> {
  return run(c, async (q) => {
    await q.update(users).set({ passwordHash: hash }).where(eq(users.id, userId));
  });
}

/** Moves a user to another plan (its allowance, slots and rate limits apply from the next request). */
export function setUserPlan(c: Conn, userId: string, plan: Plan): Promise<void> {
  return run(c, async (q) => {
    await q.update(users).set({ plan }).where(eq(users.id, userId));
  });
}

/** The web app's language for this user; null follows the browser's. */
export function setUserLocale(c: Conn, userId: string, locale: Locale | null): Promise<void> {
  return run(c, async (q) => {
    await q.update(users).set({ locale }).where(eq(users.id, userId));
  });
}

export function listUsers(c: Conn): Promise<User[]> {
  return run(c, (q) => q.select(userColumns).from(users).where(isNull(users.deletedAt)).orderBy(users.createdAt));
}

/** Every row, deleted accounts kept for their ledger included: a data dir that had users never gets the first-run admin again. */
export function countUsers(c: Conn): Promise<number> {
  return run(c, async (q) => (await q.select({ n: count() }).from(users))[0]?.n ?? 0);
}

