import { ApiError } from "../errors/api-error.ts";
import { SlidingWindowLimiter, WINDOW_SECONDS } from "../http/rate-limit.ts";

/**
 * Test pings one endpoint may be sent per sliding 60 s window. A ping is an outbound request to a
 * URL the caller chose: without a bound of its own, a loop of test calls (within the caller's
 * request budget, times every key it holds) points the service at a receiver as often as it likes.
 * Enough to debug a receiver and to watch the 15-failure disable rule at work.
 */
export const PINGS_PER_ENDPOINT_PER_WINDOW = 20;

/**
 * Counts each endpoint's test pings, in the API process (the API's .../test and the web app's test
 * button share one). Kept in memory: a restart forgets the window, which lets at most one more
 * window's worth through.
 */
export class PingThrottle {
  private readonly windows = new SlidingWindowLimiter();

  constructor(private readonly limit = PINGS_PER_ENDPOINT_PER_WINDOW) {}

  /** Counts one ping of this endpoint, or throws 429 rate_limited with Retry-After. */
  admit(endpointId: string, now: number): void {
    const state = this.windows.consume(endpointId, this.limit, now);
    if (state.allowed) return;
    throw new ApiError(
      "rate_limited",
      `This endpoint was sent ${this.limit} test pings in the last ${WINDOW_SECONDS} seconds. Retry after ${state.retryAfter} seconds.`,
      { headers: { "Retry-After": String(state.retryAfter) } },
    );
  }
}
