import { Elysia } from "elysia";
import { ApiError, type FieldError } from "../errors/api-error.ts";
import { fieldPath } from "./validation.ts";
import { problemFromApiError, problemResponse } from "./problem.ts";
import { contextOf, type RequestContext } from "./request-context.ts";
import { checkAccess, parseJsonBody, parseParamsAndQuery, type Reply, type RouteDef } from "./route.ts";

export interface RouterOptions {
  docsUrl: string;
  onUnexpectedError(error: unknown, requestId: string): void;
  /** Refusals the operator should hear of (ApiError.warning): one warning line each. */
  onWarning(message: string, requestId: string): void;
}

/**
 * Mounts route definitions on Elysia. Each route is thin: check access, validate, call the
 * handler, render. Every failure leaves as problem+json.
 */
export function createRouter(routes: RouteDef[], options: RouterOptions) {
  const app = new Elysia();
  const patterns = routes.map((route) => ({ route, regex: pathRegex(route.path) }));

  const fail = (error: unknown, request: Request, requestId: string, input?: { query?: unknown; body?: unknown }): Response => {
    const instance = new URL(request.url).pathname;
    if (isNulRefused(error)) error = ApiError.validation(nulFieldErrors(input));
    if (error instanceof ApiError) {
      if (error.warning) options.onWarning(error.warning, requestId);
      return problemFromApiError(options.docsUrl, error, instance, requestId);
    }
    options.onUnexpectedError(error, requestId);
    return problemResponse(options.docsUrl, {
      code: "internal_error",
      detail: "The service failed unexpectedly.",
      instance,
      requestId,
    });
  };

  const serve = (route: RouteDef, { request, params }: { request: Request; params: Record<string, string> }): Response | Promise<Response> => {
    const context = contextOf(request);
    const { requestId, auth, rate } = context;
    context.route = route.path;
    try {
      if (route.access.kind !== "public" && auth.kind === "rejected") throw new ApiError("unauthorized", auth.detail);
      // The outcome's principal is shared by every request of its key (cached): this request's own copy carries its client address.
      const principal = auth.kind === "authenticated" ? { ...auth.principal, clientAddress: context.clientAddress } : undefined;
      checkAccess(route.access, principal);
      const { params: parsedParams, query } = parseParamsAndQuery(route, request, params);
      const input = { principal: principal!, params: parsedParams, query, body: undefined as unknown, request, requestId, rate };
      const finish = (reply: Reply | Promise<Reply>) =>
        reply instanceof Promise ? reply.then((settled) => render(settled, context), (error: unknown) => fail(error, request, requestId, input)) : render(reply, context);
      if (route.body) {
        return parseJsonBody(route.body, request)
          .then((body) => {
            input.body = body;
            return finish(route.handle({ ...input, body } as never));
          })
          .catch((error: unknown) => fail(error, request, requestId, input));
      }
      return finish(route.handle(input as never));
    } catch (error) {
      return fail(error, request, requestId);
    }
  };

  for (const route of routes) {
    // A bound function, not an arrow: Elysia reads a handler's source to guess whether it is async
    // (any `return f(` or the word "await" counts) and then compiles an async wrapper, which puts a
    // promise and a microtask on every request. A bound function's source says nothing, so a route
    // that answers at once (GET /v1/me) returns its Response without a promise; one whose handler
    // returns a promise still works, as Elysia maps a returned promise either way.
    app.route(route.method, route.path, serve.bind(null, route));
  }

  app.onError(({ code, error, request }) => {
    const { requestId } = contextOf(request);
    const pathname = new URL(request.url).pathname;
    if (code === "NOT_FOUND") {
      const allowed = patterns.filter((p) => p.regex.test(pathname)).map((p) => p.route.method);
      if (allowed.length) {
        return fail(
          new ApiError("method_not_allowed", `${request.method} is not allowed on ${pathname}.`, {
            headers: { Allow: [...new Set(allowed)].join(", ") },
          }),
          request,
          requestId,
        );
      }
      return fail(new ApiError("not_found", `No operation at ${request.method} ${pathname}.`), request, requestId);
    }
    return fail(error, request, requestId);
  });

  return app;
}

function render(reply: Reply, context: RequestContext): Response {
  if (reply instanceof Response) return reply;
  context.commonHeadersSent = true;
  const headers = context.commonHeaders;
  if (reply.headers) Object.assign(headers, reply.headers);
  const json = reply.json ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body));
  if (json === undefined) return new Response(null, { status: reply.status, headers });
  headers["content-type"] = "application/json";
  return new Response(json, { status: reply.status, headers });
}

function pathRegex(path: string): RegExp {
  const pattern = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+");
  return new RegExp(`^${pattern}/?$`);
}

/**
 * PostgreSQL refuses the NUL character (U+0000) in text, which SQLite stores: a statement carrying
 * one fails with character_not_in_repertoire (22021). That is the client's input, not a failure
 * of the service: answered 400 like any other invalid value. (JavaScript strings reach the driver
 * as valid UTF-8, so NUL is the only character PostgreSQL refuses this way.) Drizzle wraps the
 * driver's error as its cause.
 */
function isNulRefused(error: unknown): boolean {
  let current = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 4; depth++, current = current.cause as typeof current) {
    if (current.code === "22021") return true;
  }
  return false;
}

/** The request's fields whose text holds a NUL (the body's, then the query's); "body" when none is found (a multipart form). */
function nulFieldErrors(input: { query?: unknown; body?: unknown } | undefined): FieldError[] {
  const fields: string[] = [];
  const visit = (value: unknown, path: PropertyKey[]) => {
    if (typeof value === "string") {
      if (value.includes("\u0000")) fields.push(fieldPath(path) || "body");
    } else if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...path, i]));
    else if (value !== null && typeof value === "object") for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
  };
  visit(input?.body, []);
  visit(input?.query, []);
  if (fields.length === 0) fields.push("body");
  return [...new Set(fields)].map((field) => ({ field, code: "invalid_value", message: "Text may not contain the NUL character (U+0000)." }));
}
