import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { StoredReport } from "../reports/types.ts";
import { ownedMeetingRow, reportOf } from "./store.ts";

/**
 * The AI report of one of the user's meetings. The row is the meeting's (meetings/table.ts,
 * deleted with it); reports/ serves it, handed this loader by the composition root.
 */
export function loadOwnedReport(db: Queryable, userId: string, meetingId: string): StoredReport {
  const meeting = ownedMeetingRow(db, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  if (meeting.transcribeOnly) throw new ApiError("summary_not_ready", "This meeting was created with transcribe_only: it has no AI report.");
  const row = reportOf(db, meeting.id);
  if (!row) throw new ApiError("summary_not_ready", "The AI report is not ready yet. Wait for processing.completed or poll the job.");
  return row;
}

/** loadOwnedReport over a `Conn`. */
export function ownedReport(c: Conn, userId: string, meetingId: string): Promise<StoredReport> {
  return run(c, (q) => loadOwnedReport(q, userId, meetingId));
}
