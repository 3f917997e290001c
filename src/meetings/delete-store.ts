import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { deleteMeetingDocuments } from "../documents/store.ts";
import { purgeMeetingEvents } from "../events/store.ts";
import { forgetResource } from "../idempotency/service.ts";
import { jobs } from "../jobs/table.ts";
import { removeFromIndex } from "./search-index-store.ts";
import { meetings } from "./table.ts";

/** What deleting a meeting removes from the database (meetings/delete.ts deletes the meeting). */

/**
 * The rows of one meeting and everything holding its content, inside the caller's transaction
 * (deleteMeeting's own, or an account deletion's): its search-index row, events, stored
 * responses, the client metadata of its jobs, its documents and requests, and the meeting with
 * what cascades from it. Call removeMeetingFiles (meetings/delete.ts) once the transaction has committed.
 */
export async function deleteMeetingRows(tx: Queryable, meetingId: string): Promise<void> {
  await removeFromIndex(tx, meetingId);
  await purgeMeetingEvents(tx, meetingId);
  await forgetResource(tx, meetingId);
  // The client's document_templates leave each job's payload (JSON text on both dialects: read,
  // changed and written back here rather than with SQLite's or PostgreSQL's JSON functions).
  for (const job of await tx.select({ id: jobs.id, payload: jobs.payload }).from(jobs).where(eq(jobs.meetingId, meetingId))) {
    const { documentTemplates: _dropped, ...payload } = job.payload;
    await tx.update(jobs).set({ metadata: null, payload }).where(eq(jobs.id, job.id));
  }
  await deleteMeetingDocuments(tx, meetingId);
  await tx.delete(meetings).where(eq(meetings.id, meetingId));
}

/** deleteMeetingRows over a `Conn`: inside the deleting transaction (meetings/delete.ts). */
export function removeMeetingRows(c: Conn, meetingId: string): Promise<void> {
  return run(c, (q) => deleteMeetingRows(q, meetingId));
}

/** The ids of every job of a meeting (to cancel the unfinished ones before deleting it). */
export function meetingJobIds(c: Conn, meetingId: string): Promise<string[]> {
  return run(c, async (q) => (await q.select({ id: jobs.id }).from(jobs).where(eq(jobs.meetingId, meetingId))).map((r) => r.id));
}
