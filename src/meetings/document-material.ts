import { eq } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import type { MeetingMaterial } from "../documents/material.ts";
import { isUuid } from "../lib/ids.ts";
import { toRfc3339 } from "../lib/time.ts";
import { participantsOf } from "./render.ts";
import { meetings, reports, transcripts } from "./table.ts";
import { loadTranscript } from "./transcript.ts";

/** What a document is written from (documents/material.ts), or undefined when the meeting is gone. */
export function loadMeetingMaterial(db: Queryable, meetingId: string, withTranscript: boolean): MeetingMaterial | undefined {
  if (!isUuid(meetingId)) return undefined;
  const meeting = db.select().from(meetings).where(eq(meetings.id, meetingId.toLowerCase())).get();
  if (!meeting) return undefined;
  const report = meeting.transcribeOnly
    ? undefined
    : db.select({ markdown: reports.markdown, language: reports.language }).from(reports).where(eq(reports.meetingId, meeting.id)).get();
  const heard = db.select({ speakers: transcripts.speakers }).from(transcripts).where(eq(transcripts.meetingId, meeting.id)).get();
  const named = participantsOf(db, meeting.id);
  const held = new Set(named.flatMap((p) => p.speakerLabels));
  const unattributed = (heard?.speakers ?? []).filter((label) => !held.has(label));
  const transcript =
    heard && withTranscript
      ? loadTranscript(db, meeting.id).segments.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker_name ?? s.speaker, text: s.text }))
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
