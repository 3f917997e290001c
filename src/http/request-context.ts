import type { AuthOutcome } from "../auth/authenticate.ts";
import type { RateState } from "./middleware/rate-limit/index.ts";

/** What the pipeline learned about a request before routing, for the route to read. */
export interface RequestContext {
  requestId: string;
  auth: AuthOutcome;
  rate: RateState;
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
