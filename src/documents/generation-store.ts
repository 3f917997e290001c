import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { documentRequests, documents } from "./table.ts";

// What the document_generation kind (generation.ts) reads and writes as its job moves.

/** The request a document job writes from (documents/request.ts or spawn.ts queued it). */
export function requestOfJob(c: Conn, jobId: string) {
  return run(c, (q) => q.select().from(documentRequests).where(eq(documentRequests.jobId, jobId)).get());
}

export async function insertDocument(c: Conn, values: typeof documents.$inferInsert): Promise<void> {
  await run(c, (q) => q.insert(documents).values(values).run());
}

export function findDocument(c: Conn, documentId: string) {
  return run(c, (q) => q.select().from(documents).where(eq(documents.id, documentId)).get());
}

/** A document job's request, inside a synchronous body (the bridge for spawnDocumentJobs). */
export function insertDocumentRequestIn(q: Queryable, values: typeof documentRequests.$inferInsert): void {
  q.insert(documentRequests).values(values).run();
}
