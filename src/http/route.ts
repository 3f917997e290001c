import { z } from "zod";
import type { Principal } from "../auth/authenticate.ts";
import type { Scope } from "../auth/scopes.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ErrorCode } from "../errors/catalogue.ts";
import { readJsonBody } from "./body.ts";
import type { RateState } from "./rate-limit.ts";
import { parseOrThrow } from "./validation.ts";

export type Access =
  | { kind: "public" }
  | { kind: "any" } // any valid credential, no scope
  | { kind: "allOf"; scopes: Scope[] }
  | { kind: "anyOf"; scopes: Scope[] };

export const access = {
  public: { kind: "public" } as Access,
  any: { kind: "any" } as Access,
  allOf: (...scopes: Scope[]): Access => ({ kind: "allOf", scopes }),
  anyOf: (...scopes: Scope[]): Access => ({ kind: "anyOf", scopes }),
};

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  mediaType?: string;
  /**
   * The other media types this status is served as (a format the query asks for): text (Markdown,
   * SRT…) or binary (PDF, DOCX). The published document must name every type a client can receive.
   */
  alsoServedAs?: Record<string, "text" | "binary">;
}

/** `alsoServedAs` entries of one kind, from Content-Type values as served (parameters such as charset dropped). */
export function servedAs(kind: "text" | "binary", ...contentTypes: string[]): Record<string, "text" | "binary"> {
  return Object.fromEntries(contentTypes.map((contentType) => [contentType.split(";")[0]!.trim().toLowerCase(), kind]));
}

export interface HandlerInput<P, Q, B> {
  principal: Principal;
  params: P;
  query: Q;
  body: B;
  request: Request;
  requestId: string;
  /** The caller's rate-limit window after this request. */
  rate: RateState;
}

/**
 * A handler's answer: status and JSON body, or a ready Response for other media types. `json` is a
 * body the handler serialized itself (GET /v1/me reuses the caller's unchanging part).
 */
export type Reply = { status: number; body?: unknown; json?: string; headers?: Record<string, string> } | Response;

export interface RouteDef<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below /api, in Elysia's form: /v1/meetings/:meeting_id */
  path: string;
  /** A route outside /api that the OpenAPI document lists all the same (the OAuth server's, issue 24). */
  documentedAtRoot?: boolean;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** For routes that read the body themselves (uploads): what to document, by media type. */
  requestBodyDoc?: Record<string, z.ZodType>;
  responses: Record<number, ResponseDoc>;
  /** Problem codes this operation can answer beyond the ones every operation can. */
  errors?: ErrorCode[];
  handle(input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>): Reply | Promise<Reply>;
}

/** Type-checks a route definition; the registry keeps it for routing and for OpenAPI. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}

export function checkAccess(rule: Access, principal: Principal | undefined): asserts principal is Principal {
  if (rule.kind === "public") return;
  if (!principal) throw new ApiError("unauthorized", "This operation needs Authorization: Bearer <API key or access token>.");
  const held = principal.credential.scopes;
  if (rule.kind === "allOf") {
    const missing = rule.scopes.filter((s) => !held.includes(s));
    if (missing.length) throw new ApiError("insufficient_scope", `This operation needs the scope(s): ${missing.join(", ")}.`);
  }
  if (rule.kind === "anyOf" && !rule.scopes.some((s) => held.includes(s))) {
    throw new ApiError("insufficient_scope", `This operation needs one of the scopes: ${rule.scopes.join(", ")}.`);
  }
}

/** Query string to a plain object; a repeated key becomes an array (e.g. tag=a&tag=b). */
export function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else out[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** Validates the path params and query of one request against the route's schemas. */
export function parseParamsAndQuery(route: RouteDef, request: Request, rawParams: Record<string, string>) {
  const params = route.params ? parsePathParams(route.params, rawParams) : rawParams;
  const query = route.query ? parseOrThrow(route.query, queryObject(new URL(request.url))) : {};
  return { params, query };
}

/**
 * A path whose ids cannot name anything (a meeting id that is no UUID, an id far too long) names
 * nothing the caller owns: 404 like any id of another account (SPEC 1: never tell the two apart),
 * not a 400 about the id's form.
 */
function parsePathParams(schema: z.ZodType, rawParams: Record<string, string>): unknown {
  const result = schema.safeParse(rawParams);
  if (!result.success) throw ApiError.notFound("The resource this path names");
  return result.data;
}

/** Reads the JSON body and validates it against the route's body schema. */
export async function parseJsonBody(schema: z.ZodType, request: Request): Promise<unknown> {
  return parseOrThrow(schema, await readJsonBody(request));
}

/** "true"/"false" in a query string; anything else is a validation error. */
export const queryBoolean = z.enum(["true", "false"]).transform((v) => v === "true");
