import { createHmac, randomBytes } from "node:crypto";
import { sameSecret } from "../lib/same-secret.ts";
import { randomBase62 } from "../lib/ids.ts";

/**
 * Browsers that signed in to an account before carry a token naming that account: a random id and
 * a MAC of the id and the email under a key of this process. Their password attempts are exempt
 * from the email's wait, and counted on their own instead: a stranger failing in a user's name,
 * however patiently, cannot keep that user out of the browsers they already use. The key lives in
 * memory: a restart forgets every browser, as it forgets the failures.
 */
export class KnownBrowsers {
  private readonly key = randomBytes(32);

  /** A new token for a browser that just proved it knows `email`'s password. */
  issue(email: string): string {
    const id = randomBase62(22);
    return `${id}.${this.mac(id, email)}`;
  }

  /** The browser's own throttle key when `token` was issued for `email`, else null. */
  recognise(email: string, token: string | undefined): string | null {
    if (!token || token.length > 128) return null;
    const dot = token.indexOf(".");
    if (dot <= 0) return null;
    const id = token.slice(0, dot);
    return sameSecret(token.slice(dot + 1), this.mac(id, email)) ? `b:${id}` : null;
  }

  private mac(id: string, email: string): string {
    return createHmac("sha256", this.key).update(`${id}\n${email.trim().toLowerCase()}`).digest("base64url");
  }
}
