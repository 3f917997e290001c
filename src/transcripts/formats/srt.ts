/**
 * srt (SubRip): cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, then one text line
 * `Name: text`, a blank line between cues, LF line endings (every common player, ffmpeg and parser
 * accepts LF; CRLF buys nothing) and a final newline; an empty transcript is an empty file.
 * - Times are rounded to the millisecond (never truncated); a cue lasts at least 1 ms, so its end is
 *   always after its start even once rounded. Hours widen past 99 if ever needed.
 * - The cue text is a single line (line breaks become spaces), so it can never hold the blank line
 *   that would end the cue early.
 * - SubRip has no escape syntax: text is verbatim (players that style <b>, <i> or <font> tags may
 *   style a literal one), except that an arrow of two or more dashes and > ("-->") is written "->"
 *   so no line of text can ever be read as a timing line.
 * - Segments without text are left out; cues are in time order.
 */
import { clockMs, cueEnd, spokenSegments } from "../normalize.ts";
import type { TranscriptDocument } from "../types.ts";

export function renderSrt(doc: TranscriptDocument): string {
  return spokenSegments(doc.segments)
    .map((segment, index) => {
      const timing = `${clockMs(segment.startMs, ",")} --> ${clockMs(cueEnd(segment), ",")}`;
      const line = `${defuseArrow(segment.displayName)}: ${defuseArrow(segment.text)}`;
      return `${index + 1}\n${timing}\n${line}\n`;
    })
    .join("\n");
}

function defuseArrow(text: string): string {
  return text.replace(/-{2,}>/g, "->");
}
