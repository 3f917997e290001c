import { and, eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { externalIdentities } from "./table.ts";
import type { User } from "./users.ts";
import { findUserByEmail, findUserById, isUserActive } from "./user-store.ts";

export interface IdpPerson {
  issuer: string;
  subject: string;
  email: string | undefined;
  /** `email_verified` is exactly true in the token. */
  emailVerified: boolean;
}

export type IdpMapping = { user: User } | { refused: string };

/**
 * The user an identity provider's token stands for. Known by (issuer, sub) once linked; the
 * first time, by an email the IdP says it verified, and the link is recorded then, so a later
 * change of the email at the IdP (or a token without one) still names the same user. An
 * unverified email names no one: anyone can type any address into an IdP's profile page.
 */
export function userForIdpToken(c: Conn, person: IdpPerson, now: number): Promise<IdpMapping> {
  return run(c, async (db): Promise<IdpMapping> => {
    const mapped = await idpMapping(db, person, now);
    // A disabled account signs in through the provider no more than with a password.
    if ("user" in mapped && !(await isUserActive(db, mapped.user.id))) return { refused: DISABLED };
    return mapped;
  });
}

/** What is said of a disabled account, whatever the credential. */
const DISABLED = "The user's account is disabled.";

async function idpMapping(db: Queryable, person: IdpPerson, now: number): Promise<IdpMapping> {
  const [linked] = await db
    .select({ userId: externalIdentities.userId })
    .from(externalIdentities)
    .where(and(eq(externalIdentities.issuer, person.issuer), eq(externalIdentities.subject, person.subject)))
    .limit(1);
  if (linked) {
    const user = await findUserById(db, linked.userId);
    return user ? { user } : { refused: "The access token's subject is not a user of this service." };
  }
  if (person.email === undefined) {
    return { refused: "The access token's subject is not linked to a user of this service, and the token carries no verified email." };
  }
  if (!person.emailVerified) {
    return {
      refused: "The access token's email is not verified by the identity provider (email_verified is not true), so it cannot name a user of this service.",
    };
  }
  const user = await findUserByEmail(db, person.email);
  if (!user) return { refused: "The access token's subject is not a user of this service." };
  // A link another process recorded meanwhile is kept, not replaced.
  await db
    .insert(externalIdentities)
    .values({ issuer: person.issuer, subject: person.subject, userId: user.id, createdAt: now })
    .onConflictDoNothing();
  return { user };
}
