/** How slow a request body may arrive before the server stops waiting for it. */
export interface BodyPace {
  /** Longest wait for the next byte. */
  idleMs: number;
  /** Slowest average accepted once `graceMs` have passed, in bytes per second. */
  minBytesPerSecond: number;
  graceMs: number;
}

/** A body sent as one byte a minute would hold a connection (and a temp file) for days. */
export const DEFAULT_BODY_PACE: BodyPace = { idleMs: 60_000, minBytesPerSecond: 1024, graceMs: 60_000 };

export interface BodyWatch {
  /** Counts bytes as they arrive: one addition and one clock read, nothing more per chunk. */
  received(bytes: number): void;
  /** Why the body was given up on, once it has been. */
  readonly expired: "idle" | "slow" | undefined;
  stop(): void;
}

/**
 * Watches a body being read and calls `giveUp` (which cancels the read) once it stalls or crawls.
 * A timer checks the pace once a second, so the per-chunk cost stays a counter.
 */
export function watchBody(pace: BodyPace, giveUp: () => void, now: () => number = () => performance.now()): BodyWatch {
  const started = now();
  let last = started;
  let total = 0;
  let expired: "idle" | "slow" | undefined;
  const timer = setInterval(() => {
    const at = now();
    if (at - last > pace.idleMs) expired = "idle";
    else if (at - started > pace.graceMs && total / ((at - started) / 1000) < pace.minBytesPerSecond) expired = "slow";
    if (expired) {
      clearInterval(timer);
      giveUp();
    }
  }, Math.min(1000, Math.max(10, pace.idleMs / 4)));
  return {
    received(bytes) {
      total += bytes;
      last = now();
    },
    get expired() {
      return expired;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
