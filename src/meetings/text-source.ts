import type { Plan } from "../auth/plans.ts";
import { run, withTx, type Conn, type TxConn } from "../db/conn.ts";
import { asksRedaction } from "./redaction-store.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Channel } from "../lib/channel.ts";
import type { AdmissionDeps } from "../usage/admission.ts";
import { insertGivenTranscript, insertMeeting } from "./store.ts";
import { updateMeeting } from "./processing-store.ts";
import { queueReportOnly } from "./queue-store.ts";
import { transcriptChars } from "./regenerate-report.ts";
import type { CreateMeetingFields } from "./schema.ts";
import type { ParsedTextTranscript } from "./text-transcript.ts";

/*
 * A meeting from a given transcript (source text): pasted or uploaded in the web app, or a file
 * from Teams, Zoom or Meet sent to the API (meetings/transcript-import.ts reads it). No audio, so
 * no decoding or transcription: the transcript is stored as it was given, its named speakers
 * become participants, and a report-only job writes the AI report (none with transcribe_only: the
 * meeting is complete as stored), admitted like any language-model work (for the web app, one
 * writing of its documents quota); the documents the meeting asked for follow the report, as for
 * a recording. meetings/app.ts's createFromText and receiveUpload.
 */

/** A text meeting before it is stored: its id, fields, parsed transcript and time. */
export interface TextMeeting {
  id: string;
  fields: CreateMeetingFields;
  parsed: ParsedTextTranscript;
  /** What the summarize step reads (its input file). */
  transcript: StoredTranscript;
  now: number;
}

/**
 * The meeting to store from a parsed transcript (with words: transcript-import.ts refuses one
 * without). A participant given with the request whose name is one of the transcript's speakers
 * is that speaker (its email kept, the speaker's label added to its own); a label given to a
 * participant that the transcript gives another speaker is a 400.
 */
export function textMeeting(fields: CreateMeetingFields, parsed: ParsedTextTranscript, now: number): TextMeeting {
  const language = fields.language === "auto" ? null : fields.language;
  const key = (name: string) => name.trim().toLocaleLowerCase();
  const participants = fields.participants.map((p) => ({ ...p, speaker_labels: [...p.speaker_labels] }));
  const unmatched = parsed.speakers.filter((speaker) => {
    const same = participants.find((p) => key(p.name) === key(speaker.name));
    if (same && !same.speaker_labels.includes(speaker.label)) same.speaker_labels.push(speaker.label);
    return !same;
  });
  participants.forEach((p, i) => {
    const taken = p.speaker_labels.map((label) => parsed.speakers.find((s) => s.label === label && key(s.name) !== key(p.name))).find(Boolean);
    if (taken) {
      throw ApiError.validation([
        { field: `participants[${i}].speaker_labels`, code: "duplicate_label", message: `${taken.label} is the transcript's speaker ${taken.name}.` },
      ]);
    }
  });
  const speakers = [...new Set(parsed.segments.map((s) => s.speaker))];
  // No audio: the transcript lasts until its last cue ends.
  const duration = Math.max(...parsed.segments.map((s) => s.end));
  return {
    id: crypto.randomUUID(),
    fields: { ...fields, participants },
    parsed: { segments: parsed.segments, speakers: unmatched },
    transcript: { language, model: "text", durationSeconds: duration, speakers, segments: parsed.segments, turns: [] },
    now,
  };
}

/**
 * The text meeting's rows and its report-only job (none with transcribe_only: then it is
 * completed as stored), in one transaction over a `Conn`; `inTransaction` runs last in it (the
 * API's idempotency key). The job's id, or null.
 */
export async function storeTextMeeting(
  c: Conn,
  deps: AdmissionDeps,
  account: { userId: string; plan: Plan },
  meeting: TextMeeting,
  channel: Channel,
  /** Gives the report's step the words as stored when the glossary changed some (its input file was written before). */
  onChanged: (stored: StoredTranscript) => Promise<void>,
  inTransaction: (tx: TxConn, meetingId: string) => Promise<void> = async () => {},
): Promise<string | null> {
  const { id: meetingId, fields, parsed, transcript, now } = meeting;
  const title = `Transcript of ${new Date(now).toISOString().slice(0, 10)}`;
  return withTx(c, async (tx) => {
    await insertMeeting(tx, meetingId, account, fields, { source: "text", fileName: null, audioUrl: null, fallbackTitle: title }, "queued", now);
    // A meeting to redact: its text is not stored as given; the redact step stores the redacted copy.
    const redact = await run(tx, (q) => asksRedaction(q, meetingId));
    const stored = await insertGivenTranscript(tx, meetingId, redact ? null : transcript, parsed.speakers, now);
    // Before the job is queued and committed: no worker reads the file before it holds these words.
    if (stored && stored !== transcript) await onChanged(stored);
    const durationSeconds = transcript.durationSeconds > 0 ? Math.round(transcript.durationSeconds) : null;
    let jobId: string | null = null;
    if (fields.transcribe_only && !redact) {
      await updateMeeting(tx, meetingId, { status: "completed", durationSeconds, updatedAt: now });
    } else {
      // transcribe_only still redacts (issue 23): then the job is the redact step alone.
      await updateMeeting(tx, meetingId, { durationSeconds });
      const given = { documentTemplates: fields.document_templates ?? null, metadata: fields.metadata ?? null };
      jobId = await queueReportOnly(tx, deps, account, meetingId, channel, transcriptChars(parsed), now, given, { redact, transcribeOnly: fields.transcribe_only });
    }
    await inTransaction(tx, meetingId);
    return jobId;
  });
}
