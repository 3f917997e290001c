import { and, desc, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { ApiError } from "../errors/api-error.ts";
import { paginate } from "../http/pagination.ts";
import { toRfc3339 } from "../lib/time.ts";
import { documentRequests, documents } from "./table.ts";

export type DocumentRow = typeof documents.$inferSelect;

/** Every document can be read in these formats (GET /v1/documents/{id}?format=). */
export const DOCUMENT_FORMATS = ["json", "md", "pdf", "docx"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** The document resource (SPEC 2); markdown only where asked (GET /v1/documents/{id}). */
export function renderDocument(row: DocumentRow, withMarkdown = false) {
  return {
    id: row.id,
    object: "document" as const,
    meeting_id: row.meetingId,
    title: row.title,
    template_id: row.templateId,
    language: row.language,
    model: row.model,
    formats: [...DOCUMENT_FORMATS],
    ...(withMarkdown ? { markdown: row.markdown } : {}),
    created_at: toRfc3339(row.createdAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}

/** The account's documents, most recent first, of one meeting when asked. */
export function listDocuments(db: Queryable, userId: string, filter: { limit: number; cursor?: string; meeting_id?: string }) {
  return paginate(
    filter,
    (after, take) =>
      db
        .select()
        .from(documents)
        .where(
          and(
            eq(documents.userId, userId),
            filter.meeting_id ? eq(documents.meetingId, filter.meeting_id.toLowerCase()) : undefined,
            newestFirstAfter(documents.createdAt, documents.id, after),
          ),
        )
        .orderBy(desc(documents.createdAt), desc(documents.id))
        .limit(take)
        .all(),
    (row) => [row.createdAt, row.id],
    (rows) => rows.map((row) => renderDocument(row)),
  );
}

/** One of the account's documents; another account's is not found. */
export function getOwnedDocument(db: Queryable, userId: string, documentId: string): DocumentRow {
  const row = db
    .select()
    .from(documents)
    .where(and(eq(documents.id, documentId), eq(documents.userId, userId)))
    .get();
  if (!row) throw ApiError.notFound(`Document ${documentId}`);
  return row;
}

/** The documents of these meetings, oldest first per meeting, for the meeting objects of a page. */
export function documentsOfMeetings(db: Queryable, meetingIds: readonly string[]): Map<string, ReturnType<typeof renderDocument>[]> {
  const out = new Map<string, ReturnType<typeof renderDocument>[]>(meetingIds.map((id) => [id, []]));
  if (!meetingIds.length) return out;
  const rows = db.select().from(documents).where(inArray(documents.meetingId, [...meetingIds])).orderBy(documents.createdAt, documents.id).all();
  for (const row of rows) out.get(row.meetingId)?.push(renderDocument(row));
  return out;
}

/** Removes a meeting's documents and document requests, inside the meeting's deleting transaction. */
export function deleteMeetingDocuments(tx: Queryable, meetingId: string): void {
  tx.delete(documents).where(eq(documents.meetingId, meetingId)).run();
  tx.delete(documentRequests).where(eq(documentRequests.meetingId, meetingId)).run();
}
