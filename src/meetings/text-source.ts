import type { Plan } from "../auth/plans.ts";
import { run, withTx, type Conn } from "../db/conn.ts";
import { asksRedaction } from "./redaction-store.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { ApiError } from "../errors/api-error.ts";
import type { Channel } from "../lib/channel.ts";
import type { AdmissionDeps } from "../usage/admission.ts";
import { insertGivenTranscript, insertMeeting } from "./store.ts";
import { queueReportOnly } from "./queue-store.ts";
import { transcriptChars } from "./regenerate-report.ts";
import type { CreateMeetingFields } from "./schema.ts";
import { parseTextTranscript } from "./text-transcript.ts";

/*
 * A meeting from a text transcript (source text, web app): no audio, so no decoding or
 * transcription: the transcript is stored as the text gives it, its named speakers become
 * participants, and a report-only job writes the AI report, admitted like any language-model
 * work (for the web app, one writing of its documents quota). meetings/app.ts's createFromText.
 */

/** A text meeting before it is stored: its id, fields, parsed transcript and time. */
export interface TextMeeting {
  id: string;
  fields: CreateMeetingFields;
  parsed: ReturnType<typeof parseTextTranscript>;
  /** What the summarize step reads (its input file). */
  transcript: StoredTranscript;
  now: number;
}

/** Parses the text (400 when it holds no words) into the meeting to store. */
export function textMeeting(fields: CreateMeetingFields, text: string, now: number): TextMeeting {
  const parsed = parseTextTranscript(text);
  if (parsed.segments.length === 0) {
    throw ApiError.validation([{ field: "text", code: "too_short", message: "The transcript has no words." }]);
  }
  const language = fields.language === "auto" ? null : fields.language;
  const speakers = [...new Set(parsed.segments.map((s) => s.speaker))];
  const duration = parsed.segments.at(-1)!.end;
  return {
    id: crypto.randomUUID(),
    fields,
    parsed,
    transcript: { language, model: "text", durationSeconds: duration, speakers, segments: parsed.segments, turns: [] },
    now,
  };
}

/** The text meeting's rows and its report-only job, in one transaction over a `Conn`. */
export async function storeTextMeeting(
  c: Conn,
  deps: AdmissionDeps,
  account: { userId: string; plan: Plan },
  meeting: TextMeeting,
  channel: Channel,
): Promise<void> {
  const { id: meetingId, fields, parsed, transcript, now } = meeting;
  const title = `Transcript of ${new Date(now).toISOString().slice(0, 10)}`;
  await withTx(c, async (tx) => {
    await insertMeeting(tx, meetingId, account, fields, { source: "text", fileName: null, audioUrl: null, fallbackTitle: title }, "queued", now);
    // A meeting to redact: its text is not stored as given; the redact step stores the redacted copy.
    const redact = await run(tx, (q) => asksRedaction(q, meetingId));
    await insertGivenTranscript(tx, meetingId, redact ? null : transcript, parsed.speakers, now);
    await queueReportOnly(tx, deps, account, meetingId, channel, transcriptChars(parsed), now, { redact });
  });
}
