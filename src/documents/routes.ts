import { apiActor } from "../auth/actor.ts";
import { access, defineRoute, servedAs } from "../http/route.ts";
import { jobSchemas } from "../jobs/schema.ts";
import type { DocumentsApp } from "./app.ts";
import { DOCUMENT_FILE_TYPES } from "./resource.ts";
import {
  documentPageSchema,
  documentParams,
  documentQuery,
  documentRequestBody,
  documentRequestParams,
  documentWithMarkdownSchema,
  listDocumentsQuery,
} from "./schema.ts";

export function documentRoutes(documents: DocumentsApp) {
  return [
    defineRoute({
      method: "POST",
      path: "/api/v1/meetings/:meeting_id/documents",
      operationId: "createDocument",
      summary: "Generate a document from a template or a prompt, with the meeting's report (and transcript); answers 202 with the document_generation job",
      tag: "Documents",
      access: access.allOf("write:documents"),
      params: documentRequestParams,
      body: documentRequestBody,
      responses: { 202: { description: "Accepted: the queued document_generation job", schema: jobSchemas().jobSchema } },
      errors: ["summary_not_ready", "parallel_processing_limit", "insufficient_balance", "spend_cap_reached", "idempotency_key_in_use", "idempotency_key_reused", "malformed_body", "unsupported_media_type"],
      handle: async ({ principal, params, body, request }) => {
        const outcome = await documents.requestOnce(apiActor(principal), params.meeting_id, body, request.headers.get("idempotency-key"));
        return { status: outcome.status, body: outcome.body, headers: outcome.replayed ? { "Idempotent-Replayed": "true" } : undefined };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/documents",
      operationId: "listDocuments",
      summary: "The account's documents, most recent first, of one meeting with meeting_id",
      tag: "Documents",
      access: access.allOf("read:documents"),
      query: listDocumentsQuery,
      responses: { 200: { description: "A page of documents (without their Markdown)", schema: documentPageSchema } },
      handle: async ({ principal, query }) => ({ status: 200, body: await documents.list(apiActor(principal), query) }),
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/documents/:document_id",
      operationId: "getDocument",
      summary: "One document: json (with its Markdown), md, pdf or docx (rendered on first request, then served from a cache)",
      tag: "Documents",
      access: access.allOf("read:documents"),
      params: documentParams,
      query: documentQuery,
      responses: {
        200: {
          description: "The document; with format md, pdf or docx, the file itself",
          schema: documentWithMarkdownSchema,
          alsoServedAs: { ...servedAs("text", DOCUMENT_FILE_TYPES.md), ...servedAs("binary", DOCUMENT_FILE_TYPES.pdf, DOCUMENT_FILE_TYPES.docx) },
        },
      },
      handle: async ({ principal, params, query }) => {
        if (query.format === "json") return { status: 200, body: await documents.get(apiActor(principal), params.document_id) };
        const file = await documents.file(apiActor(principal), params.document_id, query.format);
        // Markdown is text to read in place; a PDF or DOCX is saved.
        const disposition = `${query.format === "md" ? "inline" : "attachment"}; filename="${file.fileName}"`;
        const headers: Record<string, string> = { "Content-Type": file.contentType, "Content-Disposition": disposition };
        if (file.cached !== null) headers["X-Render-Cache"] = file.cached ? "hit" : "miss";
        return new Response(file.body as string | Uint8Array<ArrayBuffer>, { headers });
      },
    }),
  ];
}
