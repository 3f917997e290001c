import { withTx, type Conn, type TxConn } from "../db/conn.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Storage } from "../storage/storage.ts";
import { meetingJobIds, removeMeetingRows } from "./delete-store.ts";
import { lockUnlessHeld } from "./legal-hold-store.ts";
import { findOwnedMeeting, type MeetingRow } from "./store.ts";

export type DeleteMeetingDeps = { conn: Conn; storage: Storage; wal: WalTruncation; cancelJobs(jobIds: string[]): void };

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
 *
 * A meeting under a legal hold (its own or its client folder's) is refused with 409 legal_hold,
 * checked in the deleting transaction under the account's lock, which setting a hold takes too:
 * a hold set meanwhile is always seen. The one deletion path: DELETE, the idle-draft sweep and the
 * retention sweep all come here; the sweep's `decide` re-checks, in that transaction, that the
 * meeting is still due (and records the deletion in it); answers false when it was not deleted.
 */
export async function deleteMeeting(
  deps: DeleteMeetingDeps,
  userId: string,
  meetingId: string,
  decide?: (tx: TxConn, meeting: MeetingRow) => Promise<boolean>,
): Promise<boolean> {
  const meeting = await findOwnedMeeting(deps.conn, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  deps.cancelJobs(await meetingJobIds(deps.conn, meeting.id));
  const deleted = await withTx(deps.conn, async (tx) => {
    await lockUnlessHeld(tx, userId, meeting.id);
    if (decide && !(await decide(tx, meeting))) return false;
    await removeMeetingRows(tx, meeting.id);
    return true;
  });
  if (!deleted) return false;
  deps.wal.afterDeletion();
  await removeMeetingFiles(deps.storage, meeting.id);
  return true;
}

/** The meeting's folder: recording, decoded audio, step outputs, draft parts, cached renders. */
export async function removeMeetingFiles(storage: Storage, meetingId: string): Promise<void> {
  await storage.delete(meetingId);
}
