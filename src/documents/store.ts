import { and, desc, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { newestFirstAfter } from "../db/keyset.ts";
import { paginateAsync } from "../http/pagination.ts";
import { documentRequests, documents } from "./table.ts";
import { renderDocument, type DocumentRow } from "./resource.ts";

/**
 * The documents' store: every read and write of `documents` and `document_requests` outside the
 * document_generation kind's own hooks. Async over a `Conn`; the two helpers over a `Queryable`
 * at the end are called by meetings/ inside its own transaction bodies.
 */

/** The account's documents, most recent first, of one meeting when asked: one page of resources. */
export function listDocuments(c: Conn, userId: string, filter: { limit: number; cursor?: string; meeting_id?: string }) {
  return run(c, (q) =>
    paginateAsync(
      filter,
      (after, take) =>
        q
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
          .limit(take),
      (row) => [row.createdAt, row.id],
      (rows) => rows.map((row) => renderDocument(row)),
    ),
  );
}

/** One of the account's documents, or undefined (another account's is none of its business). */
export function findOwnedDocument(c: Conn, userId: string, documentId: string): Promise<DocumentRow | undefined> {
  return run(
    c,
    async (q) =>
      (
        await q
          .select()
          .from(documents)
          .where(and(eq(documents.id, documentId), eq(documents.userId, userId)))
          .limit(1)
      )[0],
  );
}

/** Removes one document and what it was asked with (its request's task, instructions and title). */
export function deleteDocument(c: Conn, row: { id: string; jobId: string }): Promise<void> {
  return run(c, async (q) => {
    await q.delete(documents).where(eq(documents.id, row.id));
    await q.delete(documentRequests).where(eq(documentRequests.jobId, row.jobId));
  });
}

/** One meeting's documents of the account with their Markdown, oldest first, for the web app's meeting page. */
export function meetingDocumentsWithText(c: Conn, userId: string, meetingId: string): Promise<DocumentRow[]> {
  return run(c, (q) =>
    q
      .select()
      .from(documents)
      .where(and(eq(documents.userId, userId), eq(documents.meetingId, meetingId)))
      .orderBy(documents.createdAt, documents.id),
  );
}

/** What a document_generation job was asked to write, stored with the job. */
export function insertDocumentRequest(c: Conn, request: typeof documentRequests.$inferInsert): Promise<void> {
  return run(c, async (q) => {
    await q.insert(documentRequests).values(request);
  });
}

/** The documents of these meetings, oldest first per meeting, for the meeting objects of a page. */
export async function documentsOfMeetings(db: Queryable, meetingIds: readonly string[]): Promise<Map<string, ReturnType<typeof renderDocument>[]>> {
  const out = new Map<string, ReturnType<typeof renderDocument>[]>(meetingIds.map((id) => [id, []]));
  if (!meetingIds.length) return out;
  const rows = await db.select().from(documents).where(inArray(documents.meetingId, [...meetingIds])).orderBy(documents.createdAt, documents.id);
  for (const row of rows) out.get(row.meetingId)?.push(renderDocument(row));
  return out;
}

/** Removes a meeting's documents and document requests, inside the meeting's deleting transaction. */
export async function deleteMeetingDocuments(tx: Queryable, meetingId: string): Promise<void> {
  await tx.delete(documents).where(eq(documents.meetingId, meetingId));
  await tx.delete(documentRequests).where(eq(documentRequests.meetingId, meetingId));
}
