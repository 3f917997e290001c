import type { Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import type { ExportInput } from "../exports/bundle.ts";
import { toRfc3339 } from "../lib/time.ts";
import { ownedExportRows } from "./store.ts";
import { transcriptDocument } from "./transcript.ts";

/** Everything one of the user's meetings exports (exports/ builds the bundle from it). */
export async function ownedExportInput(c: Conn, userId: string, meetingId: string): Promise<ExportInput> {
  const rows = await ownedExportRows(c, userId, meetingId);
  if (!rows) throw ApiError.notFound(`Meeting ${meetingId}`);
  const { meeting } = rows;
  const transcript = transcriptDocument(meeting, rows.transcript); // 409 transcript_not_ready when there is none yet
  return {
    meeting: {
      id: meeting.id,
      title: meeting.title,
      recordedAt: toRfc3339(meeting.recordedAt),
      durationSeconds: meeting.durationSeconds,
      language: meeting.language,
      client: rows.client?.name ?? null,
      tags: rows.tags,
      metadata: meeting.metadata,
    },
    participants: rows.participants.map((p) => ({ name: p.name, email: p.email, speakerLabels: p.speakerLabels })),
    reportMarkdown: rows.report?.markdown ?? null,
    segments: transcript.segments,
  };
}
