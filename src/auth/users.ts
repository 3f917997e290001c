import { count, eq } from "drizzle-orm";
import type { Db, Queryable } from "../db/client.ts";
import { randomId } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import type { Plan } from "./plans.ts";
import { users } from "./table.ts";

export type User = typeof users.$inferSelect;

export function createUser(db: Db, input: { email: string; name?: string | null; plan: Plan }, now = Date.now()): User {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(`not an email address: ${input.email}`);
  if (findUserByEmail(db, email)) throw new Error(`a user with email ${email} already exists`);
  const user: User = { id: randomId("usr", 16), email, name: input.name ?? null, plan: input.plan, createdAt: now };
  db.insert(users).values(user).run();
  return user;
}

export function findUserByEmail(db: Queryable, email: string): User | undefined {
  return db.select().from(users).where(eq(users.email, email.trim().toLowerCase())).get();
}

export function findUserById(db: Queryable, id: string): User | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

/** Moves a user to another plan (its allowance, slots and rate limits apply from the next request). */
export function setUserPlan(db: Queryable, userId: string, plan: Plan): void {
  db.update(users).set({ plan }).where(eq(users.id, userId)).run();
}

export function listUsers(db: Db): User[] {
  return db.select().from(users).orderBy(users.createdAt).all();
}

export function countUsers(db: Db): number {
  return db.select({ n: count() }).from(users).get()?.n ?? 0;
}

export function renderUser(user: User) {
  return { id: user.id, object: "user", email: user.email, name: user.name, created_at: toRfc3339(user.createdAt) };
}
