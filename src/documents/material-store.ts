import type { Queryable } from "../db/client.ts";
import { run, type Conn } from "../db/conn.ts";

/**
 * What a document is written from, as the meeting side reads it (meetings/document-material-store.ts,
 * injected by service.ts: documents/ never imports meetings/).
 */
export interface MeetingMaterial {
  meetingId: string;
  userId: string;
  title: string;
  /** When the meeting took place, RFC 3339. */
  date: string;
  language: string | null;
  transcribeOnly: boolean;
  /** The meeting's status: documents are requested only of a completed meeting. */
  status: string;
  /** The participants' names. */
  participants: string[];
  /** Transcript speakers attributed to no participant (SPEAKER_01 ...). */
  unattributedSpeakers: string[];
  /** null until the AI report exists (and always for transcribe_only). */
  report: { markdown: string; language: string | null } | null;
  /** Read only when asked for; each speaker is its participant's name when attributed. */
  transcript: { start: number; end: number; speaker: string; text: string }[] | null;
}

/** The meeting's material, or undefined when the meeting is gone; the transcript only when `withTranscript`. */
export type LoadMeetingMaterial = (db: Queryable, meetingId: string, withTranscript: boolean) => Promise<MeetingMaterial | undefined>;

/** `load` (meetings/document-material.ts, injected by service.ts) on a `Conn`: inside the transaction when `c` is one. */
export function readMeetingMaterial(c: Conn, load: LoadMeetingMaterial, meetingId: string, withTranscript: boolean): Promise<MeetingMaterial | undefined> {
  return run(c, (q) => load(q, meetingId, withTranscript));
}
