import { eq } from "drizzle-orm";
import { rmSync } from "node:fs";
import type { Db, Queryable } from "../db/client.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import { ApiError } from "../errors/api-error.ts";
import { deleteMeetingDocuments } from "../documents/query.ts";
import { purgeMeetingEvents } from "../events/service.ts";
import { forgetResource } from "../idempotency/service.ts";
import { jobs } from "../jobs/table.ts";
import { meetingDir } from "../storage/paths.ts";
import { getOwnedMeetingRow } from "./render.ts";
import { removeFromIndex } from "./search-index.ts";
import { meetings } from "./table.ts";

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
export function deleteMeeting(
  deps: { db: Db; dataDir: string; wal: WalTruncation; cancelJobs(jobIds: string[]): void },
  userId: string,
  meetingId: string,
): void {
  const meeting = getOwnedMeetingRow(deps.db, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  deps.cancelJobs(jobIdsOf(deps.db, meeting.id));
  deps.db.transaction((tx) => {
    removeFromIndex(tx, meeting.id);
    purgeMeetingEvents(tx, meeting.id);
    forgetResource(tx, meeting.id);
    tx.update(jobs)
      .set({ metadata: null, documentTemplates: null })
      .where(eq(jobs.meetingId, meeting.id))
      .run();
    deleteMeetingDocuments(tx, meeting.id);
    tx.delete(meetings).where(eq(meetings.id, meeting.id)).run();
  });
  deps.wal.afterDeletion();
  rmSync(meetingDir(deps.dataDir, meeting.id), { recursive: true, force: true });
}

function jobIdsOf(db: Queryable, meetingId: string): string[] {
  return db.select({ id: jobs.id }).from(jobs).where(eq(jobs.meetingId, meetingId)).all().map((r) => r.id);
}
