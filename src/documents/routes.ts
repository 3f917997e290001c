import type { Db } from "../db/client.ts";
import { access, defineRoute, servedAs } from "../http/route.ts";
import { hashRequest, type IdempotencyStore } from "../idempotency/service.ts";
import { jobSchemas } from "../jobs/schema.ts";
import { getJobIn } from "../jobs/store.ts";
import type { LoadMeetingMaterial } from "./material.ts";
import { getOwnedDocument, listDocuments, renderDocument } from "./query.ts";
import { DOCUMENT_FILE_TYPES, documentFile } from "./file.ts";
import type { RenderDocument } from "./render-cache.ts";
import { requestDocument, type RequestDocumentDeps } from "./request.ts";
import {
  documentPageSchema,
  documentParams,
  documentQuery,
  documentRequestBody,
  documentRequestParams,
  documentWithMarkdownSchema,
  listDocumentsQuery,
} from "./schema.ts";

export interface DocumentRouteDeps extends RequestDocumentDeps {
  db: Db;
  dataDir: string;
  idempotency: IdempotencyStore;
  loadMaterial: LoadMeetingMaterial;
  render: RenderDocument;
  scheduler: { wake(): void };
}


export function documentRoutes(deps: DocumentRouteDeps) {
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
        const account = { userId: principal.user.id, plan: principal.user.plan };
        const meetingId = params.meeting_id.toLowerCase();
        const outcome = await deps.idempotency.run({
          userId: account.userId,
          operation: "POST /v1/meetings/{id}/documents",
          key: request.headers.get("idempotency-key"),
          parse: async () => ({ parsed: body, hash: hashRequest({ meeting_id: meetingId, body }) }),
          execute: async (parsed, complete) => {
            let response: unknown;
            requestDocument(deps, account, meetingId, parsed, (tx, jobId) => {
              response = getJobIn(tx, account.userId, jobId);
              // The meeting is the resource: deleting it forgets this stored response too.
              complete(tx, { status: 202, body: response }, meetingId);
            });
            deps.scheduler.wake();
            return { status: 202, body: response };
          },
        });
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
      handle: ({ principal, query }) => ({ status: 200, body: listDocuments(deps.db, principal.user.id, query) }),
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
        if (query.format === "json") return { status: 200, body: renderDocument(getOwnedDocument(deps.db, principal.user.id, params.document_id), true) };
        const file = await documentFile(deps, principal.user.id, params.document_id, query.format);
        // Markdown is text to read in place; a PDF or DOCX is saved.
        const disposition = `${query.format === "md" ? "inline" : "attachment"}; filename="${file.fileName}"`;
        const headers: Record<string, string> = { "Content-Type": file.contentType, "Content-Disposition": disposition };
        if (file.cached !== null) headers["X-Render-Cache"] = file.cached ? "hit" : "miss";
        return new Response(file.body as string | Uint8Array<ArrayBuffer>, { headers });
      },
    }),
  ];
}
