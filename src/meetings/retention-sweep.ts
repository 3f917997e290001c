import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { withTx, type TxConn } from "../db/conn.ts";
import { DECODED_AUDIO, RECORDING } from "../storage/paths.ts";
import { deleteMeeting, type DeleteMeetingDeps } from "./delete.ts";
import { lockUnlessHeld } from "./legal-hold-store.ts";
import { markRecordingDeleted, meetingsDue, stillDue, type RetentionCut } from "./retention-store.ts";

/** What a sweep cut, for the audit trail: one entry per meeting deleted or recording removed. */
export interface RetentionCutEvent {
  action: typeof AUDIT_ACTIONS.retentionMeetingDeleted | typeof AUDIT_ACTIONS.retentionRecordingDeleted;
  userId: string;
  meetingId: string;
}

export interface RetentionSweepDeps extends DeleteMeetingDeps {
  /** Writes one cut to the audit trail, inside the transaction that makes it (so it is recorded if and only if it happened). */
  recordCut(tx: TxConn, event: RetentionCutEvent): Promise<void>;
}

/** At most this many meetings of each cut per sweep: a policy that suddenly covers years is worked off over several sweeps. */
export const RETENTION_BATCH = 200;

/**
 * Applies every account's retention policy at `now` (meetings/retention-store.ts says what is
 * due): first whole meetings, through the one deletion path (meetings/delete.ts: jobs canceled,
 * rows, the WAL truncated, the folder), then recordings. Each cut re-decides in its own
 * transaction, under the account's lock that setting a hold takes too, so a hold set meanwhile
 * wins and two nodes sweeping at once never cut twice. A meeting that fails is logged and left for
 * the next sweep. Answers how many of each were cut.
 */
export async function sweepRetention(deps: RetentionSweepDeps, now: number, log: (line: string) => void = () => {}): Promise<{ meetings: number; recordings: number }> {
  let deletedMeetings = 0;
  for (const due of await meetingsDue(deps.conn, "meeting", now, RETENTION_BATCH)) {
    try {
      const deleted = await deleteMeeting(deps, due.userId, due.id, async (tx) => {
        if (!(await stillDue(tx, "meeting", due.id, now))) return false;
        await deps.recordCut(tx, { action: AUDIT_ACTIONS.retentionMeetingDeleted, userId: due.userId, meetingId: due.id });
        return true;
      });
      if (deleted) deletedMeetings++;
    } catch (error) {
      // Deleted by its owner meanwhile (404), or held meanwhile (409): nothing to do.
      if (!isExpected(error)) log(`retention: meeting ${due.id} not deleted: ${(error as Error).message}`);
    }
  }
  let deletedRecordings = 0;
  for (const due of await meetingsDue(deps.conn, "recording", now, RETENTION_BATCH)) {
    try {
      if (await deleteRecording(deps, due, now)) deletedRecordings++;
    } catch (error) {
      if (!isExpected(error)) log(`retention: recording of meeting ${due.id} not deleted: ${(error as Error).message}`);
    }
  }
  return { meetings: deletedMeetings, recordings: deletedRecordings };
}

/**
 * Removes a meeting's recording and decoded audio, keeping its transcript, report and documents.
 * The files go inside the transaction that marks the meeting (after the re-check under the
 * account's lock), so a hold set meanwhile is never overtaken; should the commit fail, the files
 * are gone but the mark is not, and the next sweep marks it (deleting nothing twice).
 */
async function deleteRecording(deps: RetentionSweepDeps, due: { id: string; userId: string }, now: number): Promise<boolean> {
  return withTx(deps.conn, async (tx) => {
    // The due query already left held meetings out; a hold set since then answers 409 here.
    await lockUnlessHeld(tx, due.userId, due.id);
    if (!(await stillDue(tx, "recording", due.id, now))) return false;
    await markRecordingDeleted(tx, due.id, now);
    await deps.recordCut(tx, { action: AUDIT_ACTIONS.retentionRecordingDeleted, userId: due.userId, meetingId: due.id });
    await deps.storage.delete(due.id, RECORDING);
    await deps.storage.delete(due.id, DECODED_AUDIO);
    return true;
  });
}

/** The refusals a sweep expects from the deletion path when someone acted first. */
function isExpected(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "not_found" || code === "legal_hold";
}

