import type { AuthOutcome } from "../auth/authenticate.ts";
import { DEFAULT_BODY_PACE, type BodyPace } from "../lib/body-deadline.ts";
import type { RateState } from "./middleware/rate-limit/index.ts";

/** What the pipeline learned about a request before routing, for the route to read. */
export interface RequestContext {
  requestId: string;
  auth: AuthOutcome;
  rate: RateState;
  /** How slowly this request's body may arrive. */
  bodyPace: BodyPace;
  /** The route's path pattern once the router matched one (/api/v1/meetings/:meeting_id), for metrics. */
  route?: string;
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
