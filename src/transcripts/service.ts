import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { participantsOf } from "../meetings/render.ts";
import { transcripts } from "../meetings/table.ts";
import type { TranscriptDocument } from "./types.ts";

/** The stored transcript as the API shows it, with speaker_name set where a participant holds the label. */
export function loadTranscript(db: Queryable, meetingId: string): TranscriptDocument {
  const row = db.select().from(transcripts).where(eq(transcripts.meetingId, meetingId)).get();
  if (!row) {
    throw new ApiError("transcript_not_ready", "The transcript is not ready yet. Wait for transcription.completed or poll the job.");
  }
  const names = new Map<string, string>();
  for (const p of participantsOf(db, meetingId)) for (const label of JSON.parse(p.speakerLabels) as string[]) names.set(label, p.name);
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
