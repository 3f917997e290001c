import type { Authenticator } from "../auth/authenticate.ts";
import type { Plan } from "../auth/plans.ts";
import type { BodyPace } from "../lib/body-deadline.ts";
import type { Clock } from "../lib/time.ts";
import { anonymousClientKey } from "./middleware/client-key/index.ts";
import { newRequestId } from "./middleware/request-id/index.ts";
import { rateLimitHeaders, type RateState, type SlidingWindowLimiter } from "./middleware/rate-limit/index.ts";
import type { RequestLog } from "./middleware/request-log/index.ts";
import { problemResponse } from "./problem.ts";
import { attachContext, contextOf } from "./request-context.ts";

export interface RateLimits {
  free: number;
  standard: number;
  pro: number;
  /** Requests without a valid credential, counted per client address. */
  anonymous: number;
}

export interface PipelineDeps {
  authenticator: Authenticator;
  limiter: SlidingWindowLimiter;
  limits: RateLimits;
  clock: Clock;
  docsUrl: string;
  maxHeaderBytes: number;
  /** How slowly a request body may arrive (readers give up with 408 below it). */
  bodyPace: BodyPace;
  requestLog?: RequestLog;
  /** Counts the request by route pattern and status, with its duration. */
  observeRequest?(method: string, route: string, status: number, seconds: number): void;
  /** Paths probed by orchestrators: they show the caller's window but never use it up. */
  uncountedPaths: Set<string>;
  route(request: Request): Promise<Response>;
  onUnexpectedError(error: unknown, requestId: string): void;
}

/**
 * What every request passes through before and after routing: request id, header size guard,
 * authentication, rate limiting, the headers every response carries, and the request log.
 */
export function createPipeline(deps: PipelineDeps) {
  return async function handle(request: Request, clientAddress: string): Promise<Response> {
    const started = performance.now();
    const requestId = newRequestId();
    const pathname = pathOf(request.url);
    let rate: RateState | undefined;
    let credential: string | null = null;
    let response: Response;
    try {
      if (headerBytes(request.headers) > deps.maxHeaderBytes) {
        rate = anonymousWindow(deps, clientAddress);
        response = problemResponse(deps.docsUrl, {
          code: "request_header_fields_too_large",
          detail: `The request headers add up to more than ${deps.maxHeaderBytes} bytes.`,
          instance: pathname,
          requestId,
        });
      } else {
        const auth = await deps.authenticator.authenticate(request.headers.get("authorization"));
        const principal = auth.kind === "authenticated" ? auth.principal : undefined;
        credential = principal?.rateKey ?? null;
        const key = principal?.rateKey ?? anonymousClientKey(clientAddress);
        const limit = principal ? deps.limits[principal.user.plan as Plan] : deps.limits.anonymous;
        const now = deps.clock.now();
        // Probes show the caller's window but are never refused: a liveness check must not fail
        // because other traffic from the same address (a reverse proxy, the host) used the window up.
        rate = deps.uncountedPaths.has(pathname)
          ? { ...deps.limiter.peek(key, limit, now), allowed: true, retryAfter: 0 }
          : deps.limiter.consume(key, limit, now);
        if (!rate.allowed) {
          response = problemResponse(deps.docsUrl, {
            code: "rate_limited",
            detail: `More than ${limit} requests in 60 seconds. Retry after ${rate.retryAfter} seconds.`,
            instance: pathname,
            requestId,
          });
        } else {
          attachContext(request, { requestId, auth, rate, bodyPace: deps.bodyPace });
          response = await deps.route(request);
        }
      }
    } catch (error) {
      rate ??= anonymousWindow(deps, clientAddress);
      deps.onUnexpectedError(error, requestId);
      response = problemResponse(deps.docsUrl, {
        code: "internal_error",
        detail: "The service failed unexpectedly.",
        instance: pathname,
        requestId,
      });
    }
    response.headers.set("X-Request-Id", requestId);
    for (const [name, value] of Object.entries(rateLimitHeaders(rate))) response.headers.set(name, value);
    deps.observeRequest?.(request.method, routeOf(request), response.status, (performance.now() - started) / 1000);
    deps.requestLog?.record({
      request_id: requestId,
      method: request.method,
      path: pathname,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      credential,
    });
    return response;
  };
}

/** The matched route's pattern, never the raw path (ids would make every request a new series). */
function routeOf(request: Request): string {
  try {
    return contextOf(request).route ?? "unmatched";
  } catch {
    return "unmatched"; // refused before routing (headers too large, rate limited)
  }
}

function anonymousWindow(deps: PipelineDeps, clientAddress: string): RateState {
  return deps.limiter.peek(anonymousClientKey(clientAddress), deps.limits.anonymous, deps.clock.now());
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

function headerBytes(headers: Headers): number {
  let total = 0;
  for (const [name, value] of headers) total += name.length + value.length + 4;
  return total;
}
