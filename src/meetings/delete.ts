import type { Conn } from "../db/conn.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Storage } from "../storage/storage.ts";
import { meetingJobIds, removeMeetingRows } from "./delete-store.ts";
import { findOwnedMeeting } from "./store.ts";

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
  deps: { conn: Conn; storage: Storage; wal: WalTruncation; cancelJobs(jobIds: string[]): void },
  userId: string,
  meetingId: string,
): Promise<void> {
  const meeting = await findOwnedMeeting(deps.conn, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  deps.cancelJobs(await meetingJobIds(deps.conn, meeting.id));
  await removeMeetingRows(deps.conn, meeting.id);
  deps.wal.afterDeletion();
  await removeMeetingFiles(deps.storage, meeting.id);
}

/** The meeting's folder: recording, decoded audio, step outputs, draft parts, cached renders. */
export async function removeMeetingFiles(storage: Storage, meetingId: string): Promise<void> {
  await storage.delete(meetingId);
}
