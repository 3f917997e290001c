import { eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
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
export function deleteMeetingRows(tx: Queryable, meetingId: string): void {
  removeFromIndex(tx, meetingId);
  purgeMeetingEvents(tx, meetingId);
  forgetResource(tx, meetingId);
  tx.update(jobs)
    .set({ metadata: null, payload: sql`json_remove(${jobs.payload}, '$.documentTemplates')` })
    .where(eq(jobs.meetingId, meetingId))
    .run();
  deleteMeetingDocuments(tx, meetingId);
  tx.delete(meetings).where(eq(meetings.id, meetingId)).run();
}

/** The ids of every job of a meeting (to cancel the unfinished ones before deleting it). */
export function meetingJobIds(c: Conn, meetingId: string): Promise<string[]> {
  return run(c, (q) => q.select({ id: jobs.id }).from(jobs).where(eq(jobs.meetingId, meetingId)).all().map((r) => r.id));
}

/** deleteMeetingRows in a transaction of its own over a `Conn`. */
export function removeMeetingRows(c: Conn, meetingId: string): Promise<void> {
  return runTx(c, (tx) => deleteMeetingRows(tx, meetingId));
}
