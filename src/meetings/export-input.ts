import { getClient } from "../clients/service.ts";
import { run, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ExportInput } from "../exports/bundle.ts";
import { toRfc3339 } from "../lib/time.ts";
import { ownedMeetingRow, participantsOf, reportMarkdownOf, tagsOf } from "./store.ts";
import { loadTranscript } from "./transcript.ts";

/** Everything one of the user's meetings exports (exports/ builds the bundle from it). */
export function ownedExportInput(c: Conn, userId: string, meetingId: string): Promise<ExportInput> {
  return run(c, (db) => {
    const meeting = ownedMeetingRow(db, userId, meetingId);
    if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
    const transcript = loadTranscript(db, meeting.id); // 409 transcript_not_ready when there is none yet
    const report = meeting.transcribeOnly ? undefined : reportMarkdownOf(db, meeting.id);
    const client = meeting.clientId === null ? undefined : getClient(db, userId, meeting.clientId);
    return {
      meeting: {
        id: meeting.id,
        title: meeting.title,
        recordedAt: toRfc3339(meeting.recordedAt),
        durationSeconds: meeting.durationSeconds,
        language: meeting.language,
        client: client?.name ?? null,
        tags: tagsOf(db, meeting.id),
        metadata: meeting.metadata,
      },
      participants: participantsOf(db, meeting.id).map((p) => ({ name: p.name, email: p.email, speakerLabels: p.speakerLabels })),
      reportMarkdown: report?.markdown ?? null,
      segments: transcript.segments,
    };
  });
}
