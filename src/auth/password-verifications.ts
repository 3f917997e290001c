import { verifyPassword } from "./passwords.ts";

/**
 * Argon2 verifications in flight, bounded. Each costs tens of milliseconds of a core and 64 MiB,
 * so they run a few at a time and the rest wait in a queue of bounded length; one email has at
 * most one verification in flight or waiting, one client address a few. An attempt beyond a bound
 * is refused at once (the caller answers 429), not queued: a burst of requests cannot become a
 * burst of Argon2 runs, nor a queue long enough to delay everyone else's sign-in for minutes.
 */
export interface VerificationBounds {
  /** Verifications running at once. */
  running: number;
  /** Verifications waiting for a running slot. */
  waiting: number;
  /** Running or waiting for one email. */
  perEmail: number;
  /** Running or waiting for one client address. */
  perAddress: number;
}

export const DEFAULT_VERIFICATION_BOUNDS: VerificationBounds = { running: 2, waiting: 16, perEmail: 1, perAddress: 4 };

/** An admitted verification: it waits for its turn when `verify` is called. */
export interface VerificationTicket {
  verify(password: string, hash: string | null): Promise<boolean>;
}

export class PasswordVerifications {
  private readonly bounds: VerificationBounds;
  private readonly held = new Map<string, number>();
  private running = 0;
  private admitted = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    bounds: Partial<VerificationBounds> = {},
    /** Told of each verification that ran (the metrics count them). */
    private readonly onVerified: (matched: boolean) => void = () => {},
  ) {
    this.bounds = { ...DEFAULT_VERIFICATION_BOUNDS, ...bounds };
  }

  /** A ticket for one verification for `email` from `address` (its rate-limit key), or null when a bound is reached. */
  admit(email: string, address: string): VerificationTicket | null {
    const keys = [`e:${email.trim().toLowerCase()}`, `a:${address}`];
    if ((this.held.get(keys[0]!) ?? 0) >= this.bounds.perEmail) return null;
    if ((this.held.get(keys[1]!) ?? 0) >= this.bounds.perAddress) return null;
    if (this.admitted >= this.bounds.running + this.bounds.waiting) return null;
    this.admitted++;
    for (const key of keys) this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let used = false;
    return {
      verify: async (password, hash) => {
        if (used) throw new Error("a verification ticket is used once");
        used = true;
        try {
          await this.turn();
          try {
            const matched = await verifyPassword(password, hash);
            this.onVerified(matched);
            return matched;
          } finally {
            this.running--;
            this.queue.shift()?.();
          }
        } finally {
          this.admitted--;
          for (const key of keys) {
            const left = (this.held.get(key) ?? 1) - 1;
            if (left > 0) this.held.set(key, left);
            else this.held.delete(key);
          }
        }
      },
    };
  }

  /** Verifications admitted and not yet finished (running or waiting). */
  get inFlight(): number {
    return this.admitted;
  }

  private turn(): Promise<void> {
    if (this.running < this.bounds.running) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.queue.push(() => {
        this.running++;
        resolve();
      }),
    );
  }
}
