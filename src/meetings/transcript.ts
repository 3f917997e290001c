import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { toRfc3339 } from "../lib/time.ts";
import type { TranscriptDocument, TranscriptMeta } from "../transcripts/types.ts";
import { loadParticipants, ownedMeetingRow, transcriptRowOf } from "./store.ts";

/**
 * A meeting's stored transcript as the API shows it, with speaker_name set where a participant
 * holds the label. The rows are the meeting's (meetings/table.ts, deleted with it); transcripts/
 * renders them and serves the endpoint, handed this loader by the composition root.
 */
export function loadTranscript(db: Queryable, meetingId: string): TranscriptDocument {
  const row = transcriptRowOf(db, meetingId);
  if (!row) {
    throw new ApiError("transcript_not_ready", "The transcript is not ready yet. Wait for transcription.completed or poll the job.");
  }
  const { names } = loadParticipants(db, meetingId);
  return {
    object: "transcript",
    meeting_id: meetingId,
    language: row.language,
    duration_seconds: row.durationSeconds,
    model: row.model,
    speakers: row.speakers,
    segments: row.segments.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker, speaker_name: names.get(s.speaker) ?? null, text: s.text })),
    speaker_turns: row.speakerTurns,
  };
}

/** The transcript of one of the user's meetings, with the title and date the text formats show. */
export function ownedTranscript(c: Conn, userId: string, meetingId: string): Promise<{ transcript: TranscriptDocument; meta: TranscriptMeta }> {
  return run(c, (q) => {
    const meeting = ownedMeetingRow(q, userId, meetingId);
    if (!meeting) throw ApiError.notFound(`Meeting ${meetingId}`);
    return { transcript: loadTranscript(q, meeting.id), meta: { title: meeting.title, recordedAt: toRfc3339(meeting.recordedAt) } };
  });
}

/** loadTranscript over a `Conn`: 409 transcript_not_ready while there is none. */
export function meetingTranscript(c: Conn, meetingId: string): Promise<TranscriptDocument> {
  return run(c, (q) => loadTranscript(q, meetingId));
}
