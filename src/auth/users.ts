import { toRfc3339 } from "../lib/time.ts";
import type { users } from "./table.ts";

/**
 * A user as the service passes it around: never with the password hash (see
 * passwordHashOf). A deleted account's row kept for its ledger (deleted_at set) is no user: no
 * lookup finds it. The users table is read and written by auth/user-store.ts.
 */
export type User = Omit<typeof users.$inferSelect, "passwordHash" | "locale" | "deletedAt" | "role" | "disabledAt">;

export type Locale = "en" | "fr";

/** What a user may do: an admin also uses the administration console (/admin). */
export type Role = "user" | "admin";
export const ROLES: readonly Role[] = ["user", "admin"];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export interface RenderedUser {
  id: string;
  object: "user";
  email: string;
  name: string | null;
  created_at: string;
}

// A user object the API-key cache shares between requests is rendered once (GET /v1/me renders
// it on every call); a user read from the database for one request is a new object and is not kept.
const rendered = new WeakMap<User, RenderedUser>();

export function renderUser(user: User): RenderedUser {
  let out = rendered.get(user);
  if (!out) {
    out = { id: user.id, object: "user", email: user.email, name: user.name, created_at: toRfc3339(user.createdAt) };
    rendered.set(user, out);
  }
  return out;
}
