import type { Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { toRfc3339 } from "../lib/time.ts";
import type { TranscriptDocument, TranscriptMeta } from "../transcripts/types.ts";
import { renderRedaction } from "./redaction.ts";
import { meetingTranscriptRows, ownedMeetingTranscript, type MeetingRow, type TranscriptRows } from "./store.ts";

/**
 * A meeting's stored transcript as the API shows it, with speaker_name set where a participant
 * holds the label; 409 transcript_not_ready while there is none. The rows are the meeting's
 * (meetings/table.ts, deleted with it, read by store.ts); transcripts/ renders them and serves
 * the endpoint, handed this loader by the composition root.
 */
export function transcriptDocument(meeting: Pick<MeetingRow, "id" | "redaction" | "redactionApplied">, { row, names }: TranscriptRows): TranscriptDocument {
  const meetingId = meeting.id;
  if (!row) {
    throw new ApiError("transcript_not_ready", "The transcript is not ready yet. Wait for transcription.completed or poll the job.");
  }
  return {
    object: "transcript",
    meeting_id: meetingId,
    language: row.language,
    duration_seconds: row.durationSeconds,
    model: row.model,
    speakers: row.speakers,
    segments: row.segments.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker, speaker_name: names.get(s.speaker) ?? null, text: s.text })),
    speaker_turns: row.speakerTurns,
    // Only for a meeting that asked for redaction: any other transcript reads exactly as before issue 23.
    ...(meeting.redaction ? { redaction: renderRedaction(meeting.redaction, meeting.redactionApplied) } : {}),
  };
}

/** The transcript of one of the user's meetings, with the title and date the text formats show. */
export async function ownedTranscript(c: Conn, userId: string, meetingId: string): Promise<{ transcript: TranscriptDocument; meta: TranscriptMeta }> {
  const found = await ownedMeetingTranscript(c, userId, meetingId);
  if (!found) throw ApiError.notFound(`Meeting ${meetingId}`);
  const { meeting } = found;
  return { transcript: transcriptDocument(meeting, found), meta: { title: meeting.title, recordedAt: toRfc3339(meeting.recordedAt) } };
}

/** A meeting's transcript: 409 transcript_not_ready while there is none. */
export async function meetingTranscript(c: Conn, meeting: Pick<MeetingRow, "id" | "redaction" | "redactionApplied">): Promise<TranscriptDocument> {
  return transcriptDocument(meeting, await meetingTranscriptRows(c, meeting.id));
}
