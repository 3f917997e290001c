import type { Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { StoredReport } from "../reports/types.ts";
import { ownedMeetingReport } from "./store.ts";

/**
 * The AI report of one of the user's meetings. The row is the meeting's (meetings/table.ts,
 * deleted with it); reports/ serves it, handed this loader (meetings/app.ts's report) by the
 * composition root.
 */
export async function ownedReport(c: Conn, userId: string, meetingId: string): Promise<StoredReport> {
  const found = await ownedMeetingReport(c, userId, meetingId);
  if (!found) throw ApiError.notFound(`Meeting ${meetingId}`);
  if (found.meeting.transcribeOnly) throw new ApiError("summary_not_ready", "This meeting was created with transcribe_only: it has no AI report.");
  if (!found.report) throw new ApiError("summary_not_ready", "The AI report is not ready yet. Wait for processing.completed or poll the job.");
  return found.report;
}
