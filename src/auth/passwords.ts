/**
 * Web app passwords: Argon2id through Bun.password (the runtime's own binding of the reference
 * implementation), never a hand-rolled scheme. Bounds keep a hostile form from making the server
 * hash a megabyte.
 */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `A password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `A password has at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

// A fixed hash to verify against when the email is unknown, so that a wrong email and a wrong
// password take the same time and an attacker cannot list the firm's users by timing.
let decoy: Promise<string> | undefined;

/** True when `password` matches `hash`; with no hash (unknown user, no password) it spends the same time and says false. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  if (hash === null) {
    decoy ??= hashPassword("decoy password never matched");
    await Bun.password.verify(password, await decoy);
    return false;
  }
  return Bun.password.verify(password, hash);
}
