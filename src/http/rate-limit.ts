/**
 * Sliding 60-second window per key, counted in one-second buckets: exact to the second, constant
 * memory per key whatever the limit.
 */
export const WINDOW_SECONDS = 60;

export interface RateState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest request in the window leaves it (a slot frees). */
  reset: number;
  /** Seconds to wait before a retry can succeed; 0 when allowed. */
  retryAfter: number;
}

interface Window {
  counts: Uint32Array; // requests per second, indexed by second % WINDOW_SECONDS
  seconds: Float64Array; // which second each slot currently holds
  lastSecond: number;
  /** The second `used` and `oldest` were summed for: within it a request adds one, no rescan. */
  summedSecond: number;
  used: number;
  oldest: number;
}

export class SlidingWindowLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  /** Counts one request against `key` if the window has room, and reports the window either way. */
  consume(key: string, limit: number, nowMs: number): RateState {
    return this.evaluate(key, limit, nowMs, true);
  }

  /** Reports the window without counting a request (health probes). */
  peek(key: string, limit: number, nowMs: number): RateState {
    return this.evaluate(key, limit, nowMs, false);
  }

  private evaluate(key: string, limit: number, nowMs: number, count: boolean): RateState {
    const now = Math.floor(nowMs / 1000);
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window && count) {
      window = {
        counts: new Uint32Array(WINDOW_SECONDS),
        seconds: new Float64Array(WINDOW_SECONDS).fill(-1),
        lastSecond: now,
        summedSecond: -1,
        used: 0,
        oldest: now,
      };
      this.windows.set(key, window);
    }
    let used = 0;
    let oldest = now;
    if (window) {
      // The 60 slots are summed once per second per key; later requests in that second add to the sum.
      if (window.summedSecond !== now) {
        window.summedSecond = now;
        window.used = 0;
        window.oldest = now;
        for (let i = 0; i < WINDOW_SECONDS; i++) {
          const second = window.seconds[i]!;
          if (second > now - WINDOW_SECONDS && window.counts[i]! > 0) {
            window.used += window.counts[i]!;
            if (second < window.oldest) window.oldest = second;
          }
        }
      }
      used = window.used;
      oldest = window.oldest;
    }
    const allowed = used < limit;
    if (allowed && count && window) {
      const slot = now % WINDOW_SECONDS;
      if (window.seconds[slot] !== now) {
        window.seconds[slot] = now;
        window.counts[slot] = 0;
      }
      window.counts[slot]! += 1;
      window.lastSecond = now;
      window.used += 1;
      used += 1;
    }
    const reset = oldest + WINDOW_SECONDS;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - used),
      reset,
      retryAfter: allowed ? 0 : Math.max(1, reset - now),
    };
  }

  /** Drops windows idle for a whole window, at most once a window, so memory follows active keys. */
  private sweep(now: number): void {
    if (now - this.lastSweep < WINDOW_SECONDS) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (window.lastSecond <= now - WINDOW_SECONDS) this.windows.delete(key);
    }
  }

  get size(): number {
    return this.windows.size;
  }
}

/**
 * The window's headers, added to `headers`. Lower-case names: HTTP header names are
 * case-insensitive, Bun writes them lower-case anyway, and a Response is built about 15% faster
 * from names it need not normalise.
 */
export function rateLimitHeaders(state: RateState, headers: Record<string, string> = {}): Record<string, string> {
  headers["x-ratelimit-limit"] = String(state.limit);
  headers["x-ratelimit-remaining"] = String(state.remaining);
  headers["x-ratelimit-reset"] = String(state.reset);
  if (!state.allowed) headers["retry-after"] = String(state.retryAfter);
  return headers;
}

/**
 * A key's share of its limit on one of `apiNodes` API nodes: each node enforces ceil(limit / n)
 * on its own window, so behind a proxy that spreads a key's requests over the nodes the key gets
 * about its whole limit, and never more than n − 1 requests over it (docs/decisions.md).
 */
export function perNodeLimit(limit: number, apiNodes: number): number {
  return Math.ceil(limit / Math.max(1, apiNodes));
}

/** How often an API node recounts the API nodes alive (the nodes' heartbeat is every 10 s). */
export const API_NODES_REFRESH_MS = 10_000;

/**
 * The number of API nodes alive, read from the nodes table at start and every 10 s after, off the
 * request path: a request reads the cached figure. A failed recount keeps the last one (an outage
 * of the database is answered elsewhere; the limits must not jump meanwhile).
 */
export class LiveApiNodes {
  private count = 1;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly countLive: () => Promise<number>) {}

  get nodes(): number {
    return this.count;
  }

  async refresh(): Promise<void> {
    try {
      this.count = Math.max(1, await this.countLive());
    } catch {
      // the last count stands
    }
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), API_NODES_REFRESH_MS);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * The limits as this node enforces them: each read divides the configured limit by the API nodes
 * alive. Same shape as the configured limits, so the pipeline reads them as before.
 */
export function splitLimits<T extends { [K in keyof T]: number }>(limits: T, apiNodes: { readonly nodes: number }): T {
  const split = {} as T;
  for (const name of Object.keys(limits) as Array<keyof T & string>) {
    Object.defineProperty(split, name, { enumerable: true, get: () => perNodeLimit(limits[name] as number, apiNodes.nodes) });
  }
  return split;
}
