/**
 * Failed password attempts, counted per email (over a day) and per client address (over an hour).
 * Past a few failures an email (or an address) must wait before its next attempt, and each further
 * failure doubles the wait, up to a quarter hour: guessing one account slows to four tries an hour,
 * yet nobody is locked out: once the wait is over, the right password signs in, whoever failed
 * before it (a stranger cannot keep a named user out by failing in their name, as a hard lockout
 * let them). An email's failures are remembered longer than the longest wait, or the waits would
 * shrink again as the oldest failures left the window; a success forgives them.
 *
 * A browser that signed in to the account before (`known-browsers.ts`) is exempt from the email's
 * wait and has its own count instead, with the same limit: the user's own browsers stay open
 * whatever a stranger does in their name.
 *
 * An attempt counts as a failure from the moment it is admitted, before its password is checked,
 * and a success takes it back: forty requests sent at once cannot all be checked before the first
 * failure is recorded. Kept in memory: a restart forgives, which an attacker cannot trigger from
 * outside.
 */
export const EMAIL_FAILURES_WINDOW_MS = 24 * 3600_000;
export const ADDRESS_FAILURES_WINDOW_MS = 3600_000;
/** The longest wait growing delays reach. */
export const MAX_SIGN_IN_DELAY_MS = 15 * 60_000;

export interface SignInThrottleOptions {
  /** The wait after the failure that reaches a limit; each further failure doubles it. */
  firstDelayMs: number;
  /** Failures of one email (from anywhere) before waits begin. */
  perEmail: number;
  /** Failures from one client address (over any emails: password spraying) before waits begin. */
  perAddress: number;
}

export const DEFAULT_SIGN_IN_THROTTLE: SignInThrottleOptions = { firstDelayMs: 60_000, perEmail: 5, perAddress: 20 };

/** An admitted attempt: counted as a failure until it is known to have succeeded. */
export interface SignInAttempt {
  succeeded(): void;
}

export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly options: SignInThrottleOptions;

  constructor(options: Partial<SignInThrottleOptions> = {}) {
    this.options = { ...DEFAULT_SIGN_IN_THROTTLE, ...options };
  }

  /**
   * Milliseconds to wait before the next attempt for this email from this address, or 0 when one
   * may be made now. `address` is the client's rate-limit key (an IPv6 /64 counts as one);
   * `browser` the key of a browser known to the account, or null.
   */
  waitMs(email: string, address: string, now: number, browser: string | null = null): number {
    const own = browser ?? emailKey(email);
    return Math.max(this.wait(own, this.options.perEmail, now), this.wait(addressKey(address), this.options.perAddress, now));
  }

  /** Counts an attempt as failed now, before its password is checked; `succeeded` takes it back. */
  begin(email: string, address: string, now: number, browser: string | null = null): SignInAttempt {
    const keys = [emailKey(email), addressKey(address), ...(browser ? [browser] : [])];
    for (const key of keys) {
      const times = this.recent(key, now);
      times.push(now);
      this.failures.set(key, times);
    }
    if (this.failures.size > 100_000) this.sweep(now);
    return {
      // A success forgives its email's failures, not the address's: one user's success must not
      // unlock an address that guesses at everyone else's passwords.
      succeeded: () => {
        this.failures.delete(keys[0]!);
        if (browser) this.failures.delete(browser);
        const times = this.failures.get(keys[1]!);
        const index = times?.lastIndexOf(now) ?? -1;
        if (times && index >= 0) times.splice(index, 1);
      },
    };
  }

  private wait(key: string, limit: number, now: number): number {
    const times = this.recent(key, now);
    if (times.length === 0) this.failures.delete(key);
    if (times.length < limit) return 0;
    const delay = Math.min(MAX_SIGN_IN_DELAY_MS, this.options.firstDelayMs * 2 ** (times.length - limit));
    return Math.max(0, times[times.length - 1]! + delay - now);
  }

  private recent(key: string, now: number): number[] {
    const since = now - windowOf(key);
    return (this.failures.get(key) ?? []).filter((t) => t > since);
  }

  private sweep(now: number): void {
    for (const [key, times] of this.failures) if (!times.some((t) => t > now - windowOf(key))) this.failures.delete(key);
  }
}

const emailKey = (email: string) => `e:${email.trim().toLowerCase()}`;
const addressKey = (address: string) => `a:${address}`;
const windowOf = (key: string) => (key.startsWith("a:") ? ADDRESS_FAILURES_WINDOW_MS : EMAIL_FAILURES_WINDOW_MS);
