import type { Clock } from "../lib/time.ts";
import { KnownBrowsers } from "./known-browsers.ts";
import type { PasswordVerifications } from "./password-verifications.ts";
import type { SignInThrottle } from "./sign-in-throttle.ts";

export type PasswordAttemptOutcome =
  /** `browserToken`: for the browser to keep, so that its next attempts skip the email's wait (known-browsers.ts). */
  | { kind: "matched"; browserToken: string }
  | { kind: "wrong" }
  /** Too many failures for this email or from this address: try again after `retryAfterMs`. */
  | { kind: "throttled"; retryAfterMs: number }
  /** Too many verifications in flight (for this email, this address, or overall): try again shortly. */
  | { kind: "busy" };

/**
 * One password check of a person (sign-in, or the current password when changing it): the
 * throttle's wait first, then a place among the bounded verifications, then the attempt counted
 * as failed, all before any Argon2 work starts; only then the verification, in its turn.
 */
export class PasswordAttempts {
  private readonly browsers = new KnownBrowsers();

  constructor(
    private readonly throttle: SignInThrottle,
    private readonly verifications: PasswordVerifications,
    private readonly clock: Clock,
  ) {}

  /**
   * `address` is the client's rate-limit key; `hash` is the account's stored hash, or null
   * (unknown email: the same time is spent); `browserToken` the token the browser kept from an
   * earlier match, if any. A match comes with a new token for the browser to keep.
   */
  async check(email: string, address: string, password: string, hash: string | null, browserToken?: string): Promise<PasswordAttemptOutcome> {
    const now = this.clock.now();
    const browser = this.browsers.recognise(email, browserToken);
    const wait = this.throttle.waitMs(email, address, now, browser);
    if (wait > 0) return { kind: "throttled", retryAfterMs: wait };
    const ticket = this.verifications.admit(email, address);
    if (!ticket) return { kind: "busy" };
    const attempt = this.throttle.begin(email, address, now, browser);
    if (!(await ticket.verify(password, hash))) return { kind: "wrong" };
    attempt.succeeded();
    return { kind: "matched", browserToken: this.browsers.issue(email) };
  }
}
