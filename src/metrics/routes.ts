import { access, defineRoute } from "../http/route.ts";
import { ApiError } from "../errors/api-error.ts";
import { anonymousClientKey } from "../http/client-key.ts";
import type { SlidingWindowLimiter } from "../http/rate-limit.ts";
import { contextOf } from "../http/request-context.ts";
import { sameSecret } from "../lib/same-secret.ts";
import type { Clock } from "../lib/time.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/** Wrong metrics tokens one client address may send per sliding 60 s before it is refused with 429. */
export const FAILED_SCRAPES_PER_MINUTE = 10;

/** Constant-time comparison of the Authorization header with the expected bearer token. */
function bearerMatches(header: string | null, token: string): boolean {
  return sameSecret(header, `Bearer ${token}`);
}

export interface MetricsRouteDeps {
  metrics: ServiceMetrics;
  token: string | null;
  /**
   * Wrong tokens counted per client address. /metrics is never refused by the request rate limit
   * (a scraper behind the same address as busy clients must get through), so guessing the token
   * is bounded here, like every other credential: past the limit the address is refused, right
   * token or not, until its window has room.
   */
  failures: SlidingWindowLimiter;
  clock: Clock;
}

/**
 * GET /metrics for Prometheus, outside /api. With --metrics-token it needs that bearer token
 * (the scraper's, not an API key); without, it is open to whoever reaches the port, like /healthz.
 */
export function metricsRoutes(deps: MetricsRouteDeps) {
  return [
    defineRoute({
      method: "GET",
      path: "/metrics",
      operationId: "metrics",
      summary: "Prometheus metrics (text exposition format); needs the --metrics-token bearer when one is set",
      tag: "Health",
      access: access.public,
      responses: { 200: { description: "Metrics, text/plain; version=0.0.4" } },
      handle: async ({ request }) => {
        if (deps.token) {
          const key = `metrics:${anonymousClientKey(contextOf(request).clientAddress())}`;
          const now = deps.clock.now();
          const failures = deps.failures.peek(key, FAILED_SCRAPES_PER_MINUTE, now);
          if (!failures.allowed) {
            throw new ApiError("rate_limited", `More than ${FAILED_SCRAPES_PER_MINUTE} wrong metrics tokens in 60 seconds. Retry after ${failures.retryAfter} seconds.`, {
              headers: { "retry-after": String(failures.retryAfter) },
            });
          }
          if (!bearerMatches(request.headers.get("authorization"), deps.token)) {
            deps.failures.consume(key, FAILED_SCRAPES_PER_MINUTE, now);
            throw new ApiError("unauthorized", "GET /metrics needs the metrics bearer token (--metrics-token).");
          }
        }
        const { body, contentType } = await deps.metrics.render();
        return new Response(body, { headers: { "Content-Type": contentType } });
      },
    }),
  ];
}
