import { randomBase62 } from "../lib/ids.ts";

/** A signing secret: whsec_ and 43 base62 characters (256 bits of randomness). */
export function newWebhookSecret(): string {
  return `whsec_${randomBase62(43)}`;
}

/** What the API shows of a secret after its creation: its last 4 characters. */
export function secretHint(secret: string): string {
  return `whsec_...${secret.slice(-4)}`;
}

/** How long the previous secret keeps signing after rotate_secret (SPEC 4). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/** The secrets that sign now: the current one, and the previous one while it is valid. */
export function signingSecrets(endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: number | null }, now: number): string[] {
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && (endpoint.previousSecretExpiresAt ?? 0) > now) secrets.push(endpoint.previousSecret);
  return secrets;
}
