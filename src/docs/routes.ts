import { z } from "zod";
import { access, defineRoute, type RouteDef } from "../http/route.ts";
import { buildOpenApi } from "./openapi.ts";
import { renderErrorsPage } from "./errors-page.ts";

/** What a client can count on in this document; the rest is OpenAPI 3.1's. */
const openApiDocumentSchema = z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.record(z.string(), z.unknown()) });

export function docsRoutes(deps: { apiUrl: string; docsUrl: string; allRoutes: () => RouteDef[] }) {
  let openApiJson: string | undefined;
  const errorsHtml = renderErrorsPage();
  return [
    defineRoute({
      method: "GET",
      path: "/api/openapi.json",
      operationId: "openApi",
      summary: "This OpenAPI 3.1 document",
      tag: "Docs",
      access: access.public,
      responses: { 200: { description: "OpenAPI document", schema: openApiDocumentSchema } },
      handle: () => {
        openApiJson ??= JSON.stringify(buildOpenApi(deps.allRoutes(), deps.apiUrl, deps.docsUrl));
        return new Response(openApiJson, { headers: { "Content-Type": "application/json" } });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/docs/api/errors",
      operationId: "errorCatalogue",
      summary: "The error catalogue, one anchor per code",
      tag: "Docs",
      access: access.public,
      responses: { 200: { description: "HTML page", mediaType: "text/html" } },
      handle: () => new Response(errorsHtml, { headers: { "Content-Type": "text/html; charset=utf-8" } }),
    }),
  ];
}
