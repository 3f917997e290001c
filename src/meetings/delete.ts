import { eq, sql } from "drizzle-orm";
import { rmSync } from "node:fs";
import type { Queryable } from "../db/client.ts";
import { run, runTx, type Conn } from "../db/conn.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import { ApiError } from "../errors/api-error.ts";
import { deleteMeetingDocuments } from "../documents/store.ts";
import { purgeMeetingEvents } from "../events/store.ts";
import { forgetResource } from "../idempotency/service.ts";
import { jobs } from "../jobs/table.ts";
import { meetingDir } from "../storage/paths.ts";
import { findOwnedMeeting } from "./store.ts";
import { removeFromIndex } from "./search-index.ts";
import { meetings } from "./table.ts";

/**
 * The rows of one meeting and everything holding its content, inside the caller's transaction
 * (deleteMeeting's own, or an account deletion's): its search-index row, events, stored
 * responses, the client metadata of its jobs, its documents and requests, and the meeting with
 * what cascades from it. Call removeMeetingFiles once the transaction has committed.
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

/**
 * Deletes a meeting and everything that holds its content: recording, transcript, report,
 * participants and tags (cascade), its documents and document requests, their cached renders (in
 * the meeting's folder), its search-index row, the events about it, the stored
 * responses of the requests that created it, and the client metadata its job rows carried.
 * Job rows stay (ids, states, times), as ledger lines will. Unfinished jobs are canceled first
 * (their worker is killed). Rows go before files, so a crash in between leaves only an orphan
 * folder, which the next start removes. With secure_delete on (db/client.ts, and the index's
 * own secure-delete option) the freed bytes are overwritten, not left in the file; `wal` then
 * truncates the write-ahead log, which still holds the content's earlier frames.
 */
export async function deleteMeeting(
  deps: { conn: Conn; dataDir: string; wal: WalTruncation; cancelJobs(jobIds: string[]): void },
  userId: string,
  meetingId: string,
): Promise<void> {
  const meeting = await findOwnedMeeting(deps.conn, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  deps.cancelJobs(await meetingJobIds(deps.conn, meeting.id));
  await removeMeetingRows(deps.conn, meeting.id);
  deps.wal.afterDeletion();
  removeMeetingFiles(deps.dataDir, meeting.id);
}

/** The meeting's folder: recording, decoded audio, step outputs, draft parts, cached renders. */
export function removeMeetingFiles(dataDir: string, meetingId: string): void {
  rmSync(meetingDir(dataDir, meetingId), { recursive: true, force: true });
}

function jobIdsOf(db: Queryable, meetingId: string): string[] {
  return db.select({ id: jobs.id }).from(jobs).where(eq(jobs.meetingId, meetingId)).all().map((r) => r.id);
}

/** The ids of every job of a meeting (to cancel the unfinished ones before deleting it). */
export function meetingJobIds(c: Conn, meetingId: string): Promise<string[]> {
  return run(c, (q) => jobIdsOf(q, meetingId));
}

/** deleteMeetingRows in a transaction of its own over a `Conn`. */
export function removeMeetingRows(c: Conn, meetingId: string): Promise<void> {
  return runTx(c, (tx) => deleteMeetingRows(tx, meetingId));
}
