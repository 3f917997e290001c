import type { Conn } from "../db/conn.ts";
import { ApiError } from "../errors/api-error.ts";
import { randomBase62 } from "../lib/ids.ts";
import { stepOutputName } from "../storage/paths.ts";
import type { Storage } from "../storage/storage.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { ownedMeetingTranscript } from "./store.ts";

/*
 * Writing a meeting's AI report again from its transcript as it is now (with its corrections and
 * speaker names): a processing job of the summarize step only (report_only, queue-store.ts's
 * queueReportOnly), which replaces the report and spawns no documents. The transcript goes to the
 * step's input file first (writeSummarizeInput), so the worker reads exactly what the database
 * holds. The meeting must be completed, with a transcript, and the account have a free processing
 * slot and pay for it like any language-model work. The meeting stays completed meanwhile, with
 * its report and its job as they are until the new report replaces the old one (an API client sees
 * no second processing: the web app's job is not the API's). meetings/app.ts's regenerateReport.
 */

/**
 * What a report is written again from: the transcript of one of the user's completed meetings as
 * it is now, speakers named where a participant holds the label (the model reads who spoke by
 * name). 404 when the meeting is not the user's, 409 transcript_not_ready before it is completed.
 */
export async function loadReportSource(c: Conn, userId: string, meetingId: string): Promise<{ meetingId: string; transcript: StoredTranscript }> {
  const found = await ownedMeetingTranscript(c, userId, meetingId);
  if (!found) throw ApiError.notFound(`Meeting ${meetingId}`);
  const { meeting, row, names } = found;
  if (!row || meeting.status !== "completed") {
    throw new ApiError("transcript_not_ready", "The meeting's processing must be complete before its report is written again.");
  }
  return {
    meetingId: meeting.id,
    transcript: {
      language: row.language,
      model: row.model ?? "",
      durationSeconds: row.durationSeconds ?? 0,
      speakers: row.speakers,
      segments: row.segments.map((segment) => ({ ...segment, speaker: names.get(segment.speaker) ?? segment.speaker })),
      turns: row.speakerTurns,
    },
  };
}

/** The transcript the summarize step reads (its input file), written before its job is queued. */
export async function writeSummarizeInput(storage: Storage, meetingId: string, transcript: StoredTranscript): Promise<void> {
  await storage.put(meetingId, stepOutputName("transcript"), JSON.stringify(transcript), randomBase62(8));
}

/** Characters the model reads of a transcript: its words and who said them. */
export function transcriptChars(transcript: Pick<StoredTranscript, "segments">): number {
  return transcript.segments.reduce((sum, segment) => sum + segment.text.length + segment.speaker.length + 2, 0);
}
