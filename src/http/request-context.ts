import type { AuthOutcome } from "../auth/authenticate.ts";
import { DEFAULT_BODY_PACE, type BodyPace } from "../lib/body-deadline.ts";
import type { RateState } from "./rate-limit.ts";

/** What the pipeline learned about a request before routing, for the route to read. */
export interface RequestContext {
  requestId: string;
  auth: AuthOutcome;
  rate: RateState;
  /** How slowly this request's body may arrive. */
  bodyPace: BodyPace;
  /** The client's address (looked up on demand): the sign-in throttle counts failures per address. */
  clientAddress: () => string;
  /** The route's path pattern once the router matched one (/api/v1/meetings/:meeting_id), for metrics. */
  route?: string;
  /**
   * The headers every response carries (X-Request-Id, X-RateLimit-*). The router builds its JSON
   * responses with them and sets `commonHeadersSent`; the pipeline adds them to any other response.
   * Building a Response with its headers costs less than setting them on it afterwards.
   */
  commonHeaders: Record<string, string>;
  commonHeadersSent?: boolean;
}

const contexts = new WeakMap<Request, RequestContext>();

export function attachContext(request: Request, context: RequestContext): void {
  contexts.set(request, context);
}

export function contextOf(request: Request): RequestContext {
  const context = contexts.get(request);
  if (!context) throw new Error("request reached a route without passing the pipeline");
  return context;
}

/** The body pace of a request that passed the pipeline; the default for one that did not (unit tests). */
export function bodyPaceOf(request: Request): BodyPace {
  return contexts.get(request)?.bodyPace ?? DEFAULT_BODY_PACE;
}

/** The client address lookup of a request that passed the pipeline; undefined for one that did not (unit tests). */
export function clientAddressOf(request: Request): (() => string) | undefined {
  return contexts.get(request)?.clientAddress;
}
