import { run, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { StoredReport } from "../reports/types.ts";
import { ownedMeetingRow, reportOf } from "./store.ts";

/**
 * The AI report of one of the user's meetings. The row is the meeting's (meetings/table.ts,
 * deleted with it); reports/ serves it, handed this loader (meetings/app.ts's report) by the
 * composition root.
 */
export function ownedReport(c: Conn, userId: string, meetingId: string): Promise<StoredReport> {
  return run(c, (q) => {
    const meeting = ownedMeetingRow(q, userId, meetingId);
    if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
    if (meeting.transcribeOnly) throw new ApiError("summary_not_ready", "This meeting was created with transcribe_only: it has no AI report.");
    const row = reportOf(q, meeting.id);
    if (!row) throw new ApiError("summary_not_ready", "The AI report is not ready yet. Wait for processing.completed or poll the job.");
    return row;
  });
}
