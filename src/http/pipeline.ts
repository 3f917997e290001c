import type { Authenticator } from "../auth/authenticate.ts";
import type { Plan } from "../auth/plans.ts";
import type { BodyPace } from "../lib/body-deadline.ts";
import type { Clock } from "../lib/time.ts";
import { anonymousClientKey } from "./middleware/client-key/index.ts";
import { newRequestId } from "./middleware/request-id/index.ts";
import { rateLimitHeaders, type RateState, type SlidingWindowLimiter } from "./middleware/rate-limit/index.ts";
import type { RequestLog } from "./middleware/request-log/index.ts";
import { problemResponse } from "./problem.ts";
import { attachContext, type RequestContext } from "./request-context.ts";

/** Web app requests per client address per 60 s window. */
export const WEB_PAGES_PER_MINUTE = 600;

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
  /**
   * The web app's pages: browsers send no API credential, and a person clicking through pages
   * must not run into the API's anonymous limit; they are counted per client address against
   * WEB_PAGES_PER_MINUTE instead (the sign-in form has its own throttle).
   */
  isWebPath?(pathname: string): boolean;
  route(request: Request): Response | Promise<Response>;
  onUnexpectedError(error: unknown, requestId: string): void;
}

/**
 * What every request passes through before and after routing: request id, header size guard,
 * authentication, rate limiting, the headers every response carries, and the request log.
 */
export function createPipeline(deps: PipelineDeps) {
  return async function handle(request: Request, clientAddress: () => string): Promise<Response> {
    const started = performance.now();
    const requestId = newRequestId();
    const pathname = pathOf(request.url);
    let rate: RateState | undefined;
    let credential: string | null = null;
    let context: RequestContext | undefined;
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
        const web = !principal && deps.isWebPath?.(pathname) === true;
        const key = principal?.rateKey ?? `${web ? "web:" : ""}${anonymousClientKey(clientAddress())}`;
        const limit = principal ? deps.limits[principal.user.plan as Plan] : web ? WEB_PAGES_PER_MINUTE : deps.limits.anonymous;
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
          context = { requestId, auth, rate, bodyPace: deps.bodyPace, clientAddress, commonHeaders: commonHeaders(requestId, rate) };
          attachContext(request, context);
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
    if (!context?.commonHeadersSent) {
      for (const [name, value] of Object.entries(context?.commonHeaders ?? commonHeaders(requestId, rate))) response.headers.set(name, value);
    }
    deps.observeRequest?.(request.method, context?.route ?? "unmatched", response.status, (performance.now() - started) / 1000);
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

function commonHeaders(requestId: string, rate: RateState): Record<string, string> {
  return rateLimitHeaders(rate, { "x-request-id": requestId });
}

function anonymousWindow(deps: PipelineDeps, clientAddress: () => string): RateState {
  return deps.limiter.peek(anonymousClientKey(clientAddress()), deps.limits.anonymous, deps.clock.now());
}

export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

function headerBytes(headers: Headers): number {
  let total = 0;
  // forEach, not for-of: no [name, value] array per header on every request.
  headers.forEach((value, name) => {
    total += name.length + value.length + 4;
  });
  return total;
}
