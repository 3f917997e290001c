import { z } from "zod";
import { ERROR_CATALOGUE, type ErrorCode } from "../errors/catalogue.ts";
import type { RouteDef } from "../http/route.ts";
import { API_VERSION, SERVICE_VERSION } from "../lib/version.ts";

type JsonSchema = Record<string, unknown>;

// Every operation can answer these (SPEC section 4); a route lists its own extra codes.
const COMMON_ERRORS: ErrorCode[] = ["validation_error", "unauthorized", "insufficient_scope", "not_found", "rate_limited"];
const PUBLIC_ERRORS: ErrorCode[] = ["not_found", "rate_limited"];
const NO_SCOPE_ERRORS: ErrorCode[] = ["validation_error", "unauthorized", "not_found", "rate_limited"];

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/** Path and query parameters from the route's own validation schemas. */
function parameters(route: RouteDef): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    const object = jsonSchema(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === "path" || (object.required ?? []).includes(name),
        schema: property,
        ...(property.description ? { description: property.description } : {}),
      });
    }
  }
  for (const match of route.path.matchAll(/:([A-Za-z_]+)/g)) {
    if (!out.some((p) => p.name === match[1] && p.in === "path")) {
      out.push({ name: match[1], in: "path", required: true, schema: { type: "string" } });
    }
  }
  return out;
}

/**
 * OpenAPI 3.1 document built from the route table: the same zod schemas that validate requests
 * describe them here, so the document cannot disagree with what the service accepts.
 */
export function buildOpenApi(routes: RouteDef[], serverUrl: string, docsUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    // Routes outside /api are documented only when they ask to (the OAuth server's), with their own server URL.
    const atRoot = !route.path.startsWith("/api/");
    if (atRoot && !route.documentedAtRoot) continue;
    const path = (atRoot ? route.path : route.path.slice("/api".length)).replace(/:([A-Za-z_]+)/g, "{$1}");
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      const content: Record<string, unknown> = {};
      if (doc.schema) content[doc.mediaType ?? "application/json"] = { schema: jsonSchema(doc.schema, "output") };
      for (const [mediaType, kind] of Object.entries(doc.alsoServedAs ?? {})) {
        content[mediaType] = { schema: kind === "binary" ? { type: "string", format: "binary", contentMediaType: mediaType } : { type: "string" } };
      }
      responses[status] = { description: doc.description, ...(Object.keys(content).length ? { content } : {}) };
    }
    const base = route.access.kind === "public" ? PUBLIC_ERRORS : route.access.kind === "any" ? NO_SCOPE_ERRORS : COMMON_ERRORS;
    const codes = [...base, ...(route.errors ?? [])];
    for (const code of new Set(codes)) {
      const status = String(ERROR_CATALOGUE[code].status);
      const existing = responses[status] as { description: string; content?: Record<string, unknown> } | undefined;
      responses[status] = {
        description: existing ? `${existing.description}; ${code}` : code,
        // A root route's own error body (an OAuth error's JSON) stays beside the problem.
        content: { ...(atRoot ? existing?.content : {}), "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      };
    }
    const security =
      route.access.kind === "public"
        ? []
        : [{ bearer: route.access.kind === "any" ? [] : route.access.scopes }];
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      ...(atRoot ? { servers: [{ url: serverUrl.replace(/\/api$/, "") }] } : {}),
      summary: route.summary,
      tags: [route.tag],
      security,
      ...(route.access.kind === "anyOf" ? { description: `Needs one of the scopes: ${route.access.scopes.join(", ")}.` } : {}),
      parameters: parameters(route),
      ...(route.body
        ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(route.body, "input") } } } }
        : route.requestBodyDoc
          ? {
              requestBody: {
                required: true,
                content: Object.fromEntries(
                  Object.entries(route.requestBodyDoc).map(([type, schema]) => [type, { schema: jsonSchema(schema, "input") }]),
                ),
              },
            }
          : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Verbatim API",
      version: API_VERSION,
      description: `Meeting transcription and reporting, self-hosted. Service version ${SERVICE_VERSION}. Errors: ${docsUrl}/api/errors`,
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API key (vb_live_…) or an OAuth 2.1 access token (JWT)." },
      },
      schemas: {
        Problem: {
          type: "object",
          required: ["type", "title", "status", "detail", "instance", "code", "request_id"],
          properties: {
            type: { type: "string", format: "uri" },
            title: { type: "string" },
            status: { type: "integer" },
            detail: { type: "string" },
            instance: { type: "string" },
            code: { type: "string", enum: Object.keys(ERROR_CATALOGUE) },
            request_id: { type: "string" },
            errors: {
              type: "array",
              items: {
                type: "object",
                required: ["field", "code", "message"],
                properties: { field: { type: "string" }, code: { type: "string" }, message: { type: "string" } },
              },
            },
          },
        },
      },
    },
  };
}
