import type { Authenticator, AuthOutcome } from "../auth/authenticate.ts";
import type { Plan } from "../auth/plans.ts";
import type { BodyPace } from "../lib/body-deadline.ts";
import type { Clock } from "../lib/time.ts";
import { anonymousClientKey } from "./client-key.ts";
import { newRequestId } from "./request-id.ts";
import { rateLimitHeaders, type RateState, type SlidingWindowLimiter } from "./rate-limit.ts";
import type { RequestLog } from "./request-log.ts";
import { problemResponse } from "./problem.ts";
import { attachContext, type RequestContext } from "./request-context.ts";

/** Web app requests per signed-in user, or per client address before sign-in, per 60 s window. */
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
   * must not run into the API's anonymous limit; they are counted per signed-in user (else per
   * client address) against WEB_PAGES_PER_MINUTE instead (the sign-in form has its own throttle).
   */
  isWebPath?(pathname: string): boolean;
  /**
   * The signed-in user a web app request's session cookie names, or null: their pages count
   * against that user's window, not the address's (behind a proxy or a NAT a whole firm shares one).
   * A promise when the session is read from the database (web paths only: never the API's hot path).
   */
  webUserOf?(request: Request): string | null | Promise<string | null>;
  /** Routes an admitted request; `pathname` is the one the pipeline already read from its URL. */
  route(request: Request, pathname: string): Response | Promise<Response>;
  onUnexpectedError(error: unknown, requestId: string): void;
  /**
   * The Strict-Transport-Security value every response carries, set only when the service itself
   * terminates TLS (--tls-cert): browsers then never try it over plain http again. Behind a
   * reverse proxy, the proxy sends it; over plain http the header means nothing (RFC 6797 8.1).
   */
  strictTransportSecurity?: string;
}

/** What the pipeline knows of one request while it is handled. */
interface InFlight {
  request: Request;
  clientAddress: () => string;
  started: number;
  requestId: string;
  pathname: string;
  rate?: RateState;
  credential: string | null;
  context?: RequestContext;
}

/**
 * What every request passes through before and after routing: request id, header size guard,
 * authentication, rate limiting, the headers every response carries, and the request log.
 *
 * No async function: a request authenticated by API key whose route answers at once (GET /v1/me)
 * goes through without a promise, and Bun writes its response without waiting for a microtask.
 * Access tokens (verified by jose) and routes that read a body continue in a promise.
 */
export function createPipeline(deps: PipelineDeps) {
  const failed = (error: unknown, flight: InFlight): Response => {
    flight.rate ??= anonymousWindow(deps, flight.clientAddress);
    deps.onUnexpectedError(error, flight.requestId);
    return problemResponse(deps.docsUrl, {
      code: "internal_error",
      detail: "The service failed unexpectedly.",
      instance: flight.pathname,
      requestId: flight.requestId,
    });
  };

  const admitted = (flight: InFlight, auth: AuthOutcome): Response | Promise<Response> => {
    const { request, clientAddress, pathname } = flight;
    const principal = auth.kind === "authenticated" ? auth.principal : undefined;
    flight.credential = principal?.rateKey ?? null;
    const web = !principal && deps.isWebPath?.(pathname) === true;
    if (!web) return counted(flight, auth, principal?.rateKey ?? anonymousClientKey(clientAddress()), false);
    const user = deps.webUserOf?.(request) ?? null;
    return user instanceof Promise ? user.then((settled) => counted(flight, auth, webKey(settled, clientAddress), true)) : counted(flight, auth, webKey(user, clientAddress), true);
  };

  /** The request counted against its window (`key`), then routed, or refused with 429. */
  const counted = (flight: InFlight, auth: AuthOutcome, key: string, web: boolean): Response | Promise<Response> => {
    const { request, clientAddress, requestId, pathname } = flight;
    const principal = auth.kind === "authenticated" ? auth.principal : undefined;
    const limit = principal ? deps.limits[principal.user.plan as Plan] : web ? WEB_PAGES_PER_MINUTE : deps.limits.anonymous;
    const now = deps.clock.now();
    // Probes show the caller's window but are never refused: a liveness check must not fail
    // because other traffic from the same address (a reverse proxy, the host) used the window up.
    const rate = deps.uncountedPaths.has(pathname)
      ? { ...deps.limiter.peek(key, limit, now), allowed: true, retryAfter: 0 }
      : deps.limiter.consume(key, limit, now);
    flight.rate = rate;
    if (!rate.allowed) {
      return problemResponse(deps.docsUrl, {
        code: "rate_limited",
        detail: `More than ${limit} requests in 60 seconds. Retry after ${rate.retryAfter} seconds.`,
        instance: pathname,
        requestId,
      });
    }
    const context: RequestContext = { requestId, auth, rate, bodyPace: deps.bodyPace, clientAddress, commonHeaders: commonHeaders(requestId, rate, deps.strictTransportSecurity) };
    flight.context = context;
    attachContext(request, context);
    return deps.route(request, pathname);
  };

  const dispatch = (flight: InFlight): Response | Promise<Response> => {
    const { request } = flight;
    if (headerBytes(request.headers) > deps.maxHeaderBytes) {
      flight.rate = anonymousWindow(deps, flight.clientAddress);
      return problemResponse(deps.docsUrl, {
        code: "request_header_fields_too_large",
        detail: `The request headers add up to more than ${deps.maxHeaderBytes} bytes.`,
        instance: flight.pathname,
        requestId: flight.requestId,
      });
    }
    const auth = deps.authenticator.authenticate(request.headers.get("authorization"));
    return auth instanceof Promise ? auth.then((settled) => admitted(flight, settled)) : admitted(flight, auth);
  };

  const finish = (response: Response, flight: InFlight): Response => {
    const { context } = flight;
    if (!context?.commonHeadersSent) {
      for (const [name, value] of Object.entries(context?.commonHeaders ?? commonHeaders(flight.requestId, flight.rate!, deps.strictTransportSecurity))) response.headers.set(name, value);
    }
    const seconds = (performance.now() - flight.started) / 1000;
    deps.observeRequest?.(flight.request.method, context?.route ?? "unmatched", response.status, seconds);
    deps.requestLog?.record({
      request_id: flight.requestId,
      method: flight.request.method,
      path: flight.pathname,
      status: response.status,
      duration_ms: Math.round(seconds * 1_000_000) / 1000,
      credential: flight.credential,
    });
    return response;
  };

  return function handle(request: Request, clientAddress: () => string): Response | Promise<Response> {
    const flight: InFlight = {
      request,
      clientAddress,
      started: performance.now(),
      requestId: newRequestId(),
      pathname: pathOf(request.url),
      credential: null,
    };
    let response: Response | Promise<Response>;
    try {
      response = dispatch(flight);
    } catch (error) {
      response = failed(error, flight);
    }
    if (response instanceof Promise) {
      return response.then(
        (settled) => finish(settled, flight),
        (error: unknown) => finish(failed(error, flight), flight),
      );
    }
    return finish(response, flight);
  };
}

function commonHeaders(requestId: string, rate: RateState, strictTransportSecurity: string | undefined): Record<string, string> {
  const headers = rateLimitHeaders(rate, { "x-request-id": requestId });
  if (strictTransportSecurity !== undefined) headers["strict-transport-security"] = strictTransportSecurity;
  return headers;
}

function webKey(user: string | null, clientAddress: () => string): string {
  return user ? `web:user:${user}` : `web:${anonymousClientKey(clientAddress())}`;
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
