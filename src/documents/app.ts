import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_AUDIT_TRAIL, type AuditTrail } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import { ApiError } from "../errors/api-error.ts";
import { hashRequest, type IdempotencyStore, type StoredResponse } from "../idempotency/service.ts";
import { getJob } from "../jobs/store.ts";
import { xmlSafeText } from "../lib/xml-text.ts";
import { readMeetingMaterial } from "./material-store.ts";
import { cachedRender, type RenderDocument } from "./render-cache.ts";
import { requestDocument, type RequestDocumentDeps } from "./request.ts";
import { DOCUMENT_FILE_TYPES, renderDocument, type DocumentFileFormat } from "./resource.ts";
import type { Storage } from "../storage/storage.ts";
import type { DocumentRequestBody } from "./schema.ts";
import { DOCUMENT_RENDERS } from "../storage/paths.ts";
import { deleteDocument, findOwnedDocument, listDocuments, meetingDocumentsWithText } from "./store.ts";

export interface DocumentsDeps extends RequestDocumentDeps {
  /** Where the PDF and DOCX renders are kept (with the meeting's files). */
  storage: Storage;
  idempotency: IdempotencyStore;
  render: RenderDocument;
  scheduler: { wake(): void };
  /** Where requests and downloads of documents are recorded (audit/trail.ts). */
  audit?: AuditTrail;
}

/** A document as a file: its name (ids and a format, never the client's), title, type and bytes. */
export interface DocumentFile {
  fileName: string;
  /** The document's title and template, for a name the web app gives its download. */
  title: string;
  templateId: string | null;
  contentType: string;
  body: string | Uint8Array;
  /** For PDF and DOCX, whether the render came from the cache; null for Markdown. */
  cached: boolean | null;
}

/**
 * The documents' use cases, for the API's routes and the web app alike: ask for a document of a
 * meeting (a document_generation job), list them, read one as its resource or as a file, delete one.
 */
export function documentsApp(deps: DocumentsDeps) {
  const owned = async (actor: Actor, documentId: string) => {
    const row = await findOwnedDocument(deps.conn, actor.account.userId, documentId);
    if (!row) throw ApiError.notFound(`Document ${documentId}`);
    return row;
  };
  const audit = deps.audit ?? NO_AUDIT_TRAIL;
  /** Records a read of a document's text (its id and the meeting's, the format): never the text. */
  const downloaded = (actor: Actor, row: { id: string; meetingId: string }, format: DocumentFileFormat | "json" | "page") =>
    audit.record(actorEntry(actor, AUDIT_ACTIONS.documentDownloaded, { type: "document", id: row.id }, { meeting: row.meetingId, format }));
  const requested = (actor: Actor, meetingId: string, jobId: string) =>
    audit.record(actorEntry(actor, AUDIT_ACTIONS.documentGenerated, { type: "meeting", id: meetingId }, { job: jobId }));

  return {
    /**
     * Queues a document of one of the actor's meetings on the actor's channel and wakes the
     * scheduler: the job's id. Refusals: 404, 409 summary_not_ready, 422, 429, 402 (documents/request.ts).
     */
    async request(actor: Actor, meetingId: string, body: DocumentRequestBody): Promise<string> {
      const jobId = await requestDocument(deps, actor.account, meetingId.toLowerCase(), body, undefined, actor.channel);
      deps.scheduler.wake();
      await requested(actor, meetingId.toLowerCase(), jobId);
      return jobId;
    },

    /**
     * The API's request under an Idempotency-Key (or none): the 202 with the queued job, recorded
     * with the key in the job's transaction, or the answer a retry of the same request replays.
     */
    async requestOnce(actor: Actor, meetingId: string, body: DocumentRequestBody, idempotencyKey: string | null): Promise<StoredResponse & { replayed: boolean }> {
      const userId = actor.account.userId;
      const subject = meetingId.toLowerCase();
      return deps.idempotency.run({
        userId,
        operation: "POST /v1/meetings/{id}/documents",
        key: idempotencyKey,
        parse: async () => ({ parsed: body, hash: hashRequest({ meeting_id: subject, body }) }),
        execute: async (parsed, complete) => {
          let response: unknown;
          const jobId = await requestDocument(deps, actor.account, subject, parsed, async (tx, jobId) => {
            response = await getJob(tx, userId, jobId);
            // The meeting is the resource: deleting it forgets this stored response too.
            await complete(tx, { status: 202, body: response }, subject);
          }, actor.channel);
          deps.scheduler.wake();
          await requested(actor, subject, jobId);
          return { status: 202, body: response };
        },
      });
    },

    /** The actor's documents, most recent first, of one meeting when asked (one page). */
    list(actor: Actor, filter: { limit: number; cursor?: string; meeting_id?: string }) {
      return listDocuments(deps.conn, actor.account.userId, filter);
    },

    /** One of the actor's documents with its Markdown; another account's is not found. */
    async get(actor: Actor, documentId: string) {
      const row = await owned(actor, documentId);
      await downloaded(actor, row, "json");
      return renderDocument(row, true);
    },

    /**
     * One meeting's documents with their Markdown, oldest first, for the web app's page, which shows
     * each in preview: every one shown is recorded as read (format "page"). Not the actor's meeting: none.
     */
    async ofMeeting(actor: Actor, meetingId: string) {
      const rows = await meetingDocumentsWithText(deps.conn, actor.account.userId, meetingId.toLowerCase());
      for (const row of rows) await downloaded(actor, row, "page");
      return rows.map((row) => ({ id: row.id, title: row.title, templateId: row.templateId, createdAt: row.createdAt, markdown: row.markdown }));
    },

    /**
     * One of the actor's documents as a file: the Markdown as stored, or a PDF or DOCX rendered on
     * first request and then served from the meeting's render cache. Another account's is not found.
     */
    async file(actor: Actor, documentId: string, format: DocumentFileFormat): Promise<DocumentFile> {
      const row = await owned(actor, documentId);
      await downloaded(actor, row, format);
      const file = { fileName: `${row.id}.${format}`, title: row.title, templateId: row.templateId, contentType: DOCUMENT_FILE_TYPES[format] };
      if (format === "md") return { ...file, body: xmlSafeText(row.markdown), cached: null };
      const material = await readMeetingMaterial(deps.conn, deps.loadMaterial, row.meetingId, false);
      const header = {
        title: row.title,
        meetingTitle: material?.title ?? "",
        date: material?.date ?? new Date(row.createdAt).toISOString(),
        participants: material?.participants ?? [],
        language: row.language,
      };
      const { bytes, cached } = await cachedRender(deps.storage, row, format, header, deps.render);
      return { ...file, body: bytes, cached };
    },

    /**
     * Deletes one of the actor's documents: its text, its request and its PDF and DOCX renders; the
     * meeting and its other documents stay. The usage it consumed stays in the ledger. Another
     * account's is not found.
     */
    async delete(actor: Actor, documentId: string): Promise<void> {
      const row = await owned(actor, documentId);
      await deleteDocument(deps.conn, row);
      const renders = `${DOCUMENT_RENDERS}/${row.id}-`;
      for (const name of await deps.storage.list(row.meetingId, DOCUMENT_RENDERS)) {
        if (name.startsWith(renders)) await deps.storage.delete(row.meetingId, name);
      }
      await audit.record(actorEntry(actor, AUDIT_ACTIONS.documentDeleted, { type: "document", id: row.id }, { meeting: row.meetingId }));
    },
  };
}

export type DocumentsApp = ReturnType<typeof documentsApp>;

/** Whether a format names a file a document is served as (md, pdf, docx). */
export function isDocumentFileFormat(format: string): format is DocumentFileFormat {
  return Object.hasOwn(DOCUMENT_FILE_TYPES, format);
}

export type { DocumentFileFormat, DocumentResource } from "./resource.ts";
/** What a request for a document may ask (the API's body, the web app's form). */
export { documentRequestBody, type DocumentRequestBody } from "./schema.ts";
