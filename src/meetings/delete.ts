import { eq } from "drizzle-orm";
import { rmSync } from "node:fs";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { meetingDir } from "../storage/paths.ts";
import { getOwnedMeetingRow } from "./render.ts";
import { removeFromIndex } from "./search-index.ts";
import { meetings } from "./table.ts";

/**
 * Deletes a meeting with its recording, transcript, report and participants. Unfinished jobs are
 * canceled first (their worker is killed); job rows and ledger lines stay. Rows go before files,
 * so a crash in between leaves only an orphan folder, which the next start removes.
 */
export function deleteMeeting(
  deps: { db: Db; dataDir: string; cancelJobs(meetingId: string): void },
  userId: string,
  meetingId: string,
): void {
  const meeting = getOwnedMeetingRow(deps.db, userId, meetingId);
  if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
  deps.cancelJobs(meeting.id);
  deps.db.transaction((tx) => {
    removeFromIndex(tx as unknown as Db, meeting.id);
    tx.delete(meetings).where(eq(meetings.id, meeting.id)).run();
  });
  rmSync(meetingDir(deps.dataDir, meeting.id), { recursive: true, force: true });
}
