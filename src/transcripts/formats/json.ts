/**
 * json: the Transcript object itself, compact (no indentation, no trailing newline), keys in the
 * specification's order whatever order the stored object had. Segments go through the shared
 * clean-up (normalize.ts): sorted by time, times rounded to the millisecond (so float noise such
 * as 12.340000000000001 reads 12.34), negative or NaN times written as 0, an end never before its
 * start. Unlike the text formats, segments without text are kept: this is the data, not a view.
 * duration_seconds is an integer or null (a non-finite or negative value becomes null).
 * speaker_turns (an extension: who speaks when, from diarization) are sorted and rounded the same way.
 * redaction (an extension, issue 23) comes last: null, or what personal-data redaction replaced.
 */
import { normalizeSegments } from "../normalize.ts";
import type { TranscriptDocument } from "../types.ts";

export function renderJson(doc: TranscriptDocument): string {
  const ordered: TranscriptDocument = {
    object: "transcript",
    meeting_id: doc.meeting_id,
    language: doc.language ?? null,
    duration_seconds: wholeSeconds(doc.duration_seconds),
    model: doc.model ?? null,
    speakers: [...doc.speakers],
    segments: normalizeSegments(doc.segments).map((segment) => ({
      start: segment.startMs / 1000,
      end: segment.endMs / 1000,
      speaker: segment.speaker,
      speaker_name: segment.speakerName,
      text: segment.rawText,
    })),
    speaker_turns: [...(doc.speaker_turns ?? [])]
      .sort((a, b) => a.start - b.start || a.end - b.end)
      .map((turn) => ({ start: milliseconds(turn.start), end: milliseconds(Math.max(turn.end, turn.start)), speaker: turn.speaker })),
    // Last, and only when the meeting's transcript says (issue 23): a document without it renders as before.
    ...(doc.redaction !== undefined ? { redaction: doc.redaction } : {}),
  };
  return JSON.stringify(ordered);
}

function milliseconds(seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) / 1000 : 0;
}

function wholeSeconds(value: number | null): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
}
