/**
 * txt: one line per segment, `[HH:MM:SS] Name: text`, LF line endings, a final newline; an empty
 * transcript is an empty file. Time is the segment's start in whole seconds (after rounding to the
 * millisecond, so 83.9996 s shows 00:01:24). Name is speaker_name when set, else the label.
 * Text is put on one line (line breaks become spaces) and otherwise written verbatim: plain text
 * has nothing to escape. Segments without text are left out; segments are in time order.
 * A redacted transcript (issue 23) starts with one line saying so (formats/redaction-note.ts).
 */
import { clock, spokenSegments } from "../normalize.ts";
import type { TranscriptDocument } from "../types.ts";
import { redactionNote } from "./redaction-note.ts";

export function renderTxt(doc: TranscriptDocument): string {
  const note = redactionNote(doc.redaction);
  return (note ? `${note}\n` : "") + spokenSegments(doc.segments)
    .map((segment) => `[${clock(segment.startMs)}] ${segment.displayName}: ${segment.text}\n`)
    .join("");
}
