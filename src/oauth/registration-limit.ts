/**
 * Registrations per client address and hour (POST /oauth/register is anonymous): a fixed one-hour
 * window per address, in this process's memory (each API node counts its own). The map is bounded:
 * past MAX_ADDRESSES, windows that ended are dropped, then the oldest.
 */
const MAX_ADDRESSES = 10_000;
const WINDOW_MS = 3_600_000;

export class RegistrationLimit {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perHour: number) {}

  /** Counts a registration from `address`; answers the seconds to wait when over the limit, else 0. */
  take(address: string, now: number): number {
    let window = this.windows.get(address);
    if (!window || now - window.start >= WINDOW_MS) {
      this.windows.delete(address);
      if (this.windows.size >= MAX_ADDRESSES) this.prune(now);
      window = { start: now, count: 0 };
      this.windows.set(address, window);
    }
    if (window.count >= this.perHour) return Math.ceil((window.start + WINDOW_MS - now) / 1000);
    window.count += 1;
    return 0;
  }

  private prune(now: number): void {
    for (const [address, window] of this.windows) if (now - window.start >= WINDOW_MS) this.windows.delete(address);
    // Insertion order is age order: the oldest go first.
    for (const address of this.windows.keys()) {
      if (this.windows.size < MAX_ADDRESSES) break;
      this.windows.delete(address);
    }
  }
}
