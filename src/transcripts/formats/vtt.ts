/**
 * vtt (WebVTT): the `WEBVTT` line, then each cue after a blank line: `HH:MM:SS.mmm --> HH:MM:SS.mmm`
 * and one text line `<v Name>text` (a voice span; its end tag may be left out as it runs to the end
 * of the cue). LF line endings and a final newline; an empty transcript is `WEBVTT` alone.
 * - Times as in SRT: rounded to the millisecond, every cue at least 1 ms long, hours always written
 *   (two digits, more if ever needed), no cue identifiers.
 * - &, < and > are escaped as &amp; &lt; &gt; in both the text and the voice name, which also turns
 *   any "-->" of the text into "--&gt;", so the text cannot be taken for a timing line or markup.
 * - The text is a single line (line breaks become spaces), so it can never hold a blank line.
 * - Segments without text are left out; cues are in time order.
 * Browsers do not show voice names; players and tools that read them (and WebVTT parsers) do.
 * A redacted transcript (issue 23) has a NOTE block after WEBVTT saying so (formats/redaction-note.ts).
 */
import { clockMs, cueEnd, spokenSegments } from "../normalize.ts";
import type { TranscriptDocument } from "../types.ts";
import { redactionNote } from "./redaction-note.ts";

export function renderVtt(doc: TranscriptDocument): string {
  const cues = spokenSegments(doc.segments).map((segment) => {
    const timing = `${clockMs(segment.startMs, ".")} --> ${clockMs(cueEnd(segment), ".")}`;
    return `\n${timing}\n<v ${escapeVtt(segment.displayName)}>${escapeVtt(segment.text)}\n`;
  });
  // A NOTE block (WebVTT's comment) says what redaction replaced; "-->" cannot occur in it.
  const note = redactionNote(doc.redaction);
  return `WEBVTT\n${note ? `\nNOTE ${note}\n` : ""}${cues.join("")}`;
}

function escapeVtt(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
