import type { Queryable } from "../db/client.ts";
import type { MeetingMaterial } from "../documents/material-store.ts";
import { toRfc3339 } from "../lib/time.ts";
import { loadParticipants, meetingById, reportMarkdownOf, transcriptRowsIn, transcriptSpeakers } from "./store.ts";
import { transcriptDocument } from "./transcript.ts";

/**
 * What a document is written from (documents/material-store.ts), or undefined when the meeting is gone;
 * documents/ calls it inside its own statement batch or transaction (documents/request.ts).
 */
export async function loadMeetingMaterial(db: Queryable, meetingId: string, withTranscript: boolean): Promise<MeetingMaterial | undefined> {
  const meeting = await meetingById(db, meetingId);
  if (!meeting) return undefined;
  const report = meeting.transcribeOnly ? undefined : await reportMarkdownOf(db, meeting.id);
  const heard = await transcriptSpeakers(db, meeting.id);
  const { rows: named, names: held } = await loadParticipants(db, meeting.id);
  // In the order the transcript heard them (not sorted, as the participants listing shows them).
  const unattributed = [...(heard ?? [])].filter((label) => !held.has(label));
  const transcript =
    heard && withTranscript
      ? transcriptDocument(meeting, await transcriptRowsIn(db, meeting.id)).segments.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker_name ?? s.speaker, text: s.text }))
      : null;
  return {
    meetingId: meeting.id,
    userId: meeting.userId,
    title: meeting.title,
    date: toRfc3339(meeting.recordedAt),
    language: meeting.language,
    transcribeOnly: meeting.transcribeOnly,
    status: meeting.status,
    participants: named.map((p) => p.name),
    unattributedSpeakers: unattributed,
    report: report ?? null,
    transcript,
  };
}
