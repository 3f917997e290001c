/**
 * Failed sign-ins, counted per email and per client address over a sliding quarter hour. Past the
 * limit the sign-in form refuses without checking the password (no guessing at full speed, and no
 * Argon2 work to exhaust the CPU with). Kept in memory: a restart forgives, which an attacker
 * cannot trigger from outside.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly perEmail = 5,
    private readonly perAddress = 20,
  ) {}

  /** Seconds to wait before trying again, or 0 when a try is allowed now. */
  retryAfter(email: string, address: string, now: number): number {
    const waits = [this.wait(`e:${email.trim().toLowerCase()}`, this.perEmail, now), this.wait(`a:${address}`, this.perAddress, now)];
    return Math.max(...waits);
  }

  recordFailure(email: string, address: string, now: number): void {
    for (const key of [`e:${email.trim().toLowerCase()}`, `a:${address}`]) {
      const times = this.recent(key, now);
      times.push(now);
      this.failures.set(key, times);
    }
    if (this.failures.size > 100_000) this.sweep(now);
  }

  /** A successful sign-in clears its email's failures (not the address's: one user must not unlock a guessing address). */
  recordSuccess(email: string): void {
    this.failures.delete(`e:${email.trim().toLowerCase()}`);
  }

  private wait(key: string, limit: number, now: number): number {
    const times = this.recent(key, now);
    if (times.length < limit) return 0;
    return Math.max(1, Math.ceil((times[times.length - limit]! + SIGN_IN_WINDOW_MS - now) / 1000));
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - SIGN_IN_WINDOW_MS);
  }

  private sweep(now: number): void {
    for (const [key, times] of this.failures) if (!times.some((t) => t > now - SIGN_IN_WINDOW_MS)) this.failures.delete(key);
  }
}
