import type { LabelledSegment } from "../transcripts/types.ts";
import { oneLine } from "../transcripts/normalize.ts";

/** A text transcript pasted or uploaded in the web app: at most 1 MB, 20,000 lines, 50 speakers. */
export const MAX_TEXT_TRANSCRIPT_BYTES = 1024 * 1024;
const MAX_LINES = 20_000;
const MAX_SPEAKERS = 50;

export interface ParsedTextTranscript {
  segments: LabelledSegment[];
  /** Speaker labels in order of first appearance, with the name the text gave each. */
  speakers: { label: string; name: string }[];
}

// "[01:02:03] Alice: words", "(12:34) Bob - words", "Alice: words", or just words.
const TIME = /^\s*[[(]?((?:\d{1,2}:)?\d{1,2}:\d{2})(?:[.,]\d{1,3})?[\])]?\s*/;
const SPEAKER = /^([^:\n]{1,60}?)\s*:\s+(\S.*)$/;

function seconds(clock: string): number {
  return clock.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

/**
 * Reads a text transcript into segments: one per non-empty line, its speaker from a leading
 * "Name:" (else the previous line's speaker), its start from a leading [hh:mm:ss] or (mm:ss)
 * when there is one. A text has no audio: lines without a time start where the previous one did,
 * and each segment ends where the next begins. Names become SPEAKER_00, SPEAKER_01… labels, each
 * attributed to a participant of that name, so renaming works as for a recording.
 */
export function parseTextTranscript(text: string): ParsedTextTranscript {
  const lines = text.split(/\r\n|\r|\n/).slice(0, MAX_LINES);
  const labels = new Map<string, string>();
  const segments: LabelledSegment[] = [];
  let speaker = "";
  let start = 0;
  for (const raw of lines) {
    let line = raw;
    const time = TIME.exec(line);
    if (time) {
      start = seconds(time[1]!);
      line = line.slice(time[0].length);
    }
    const named = SPEAKER.exec(line.trim());
    if (named && (labels.has(named[1]!.trim()) || labels.size < MAX_SPEAKERS)) {
      const name = oneLine(named[1]!);
      if (!labels.has(name)) labels.set(name, `SPEAKER_${String(labels.size).padStart(2, "0")}`);
      speaker = labels.get(name)!;
      line = named[2]!;
    }
    const words = oneLine(line);
    if (!words) continue;
    if (!speaker) {
      labels.set("", "SPEAKER_00");
      speaker = "SPEAKER_00";
    }
    segments.push({ start, end: start, speaker, text: words });
  }
  for (let i = 0; i < segments.length - 1; i++) segments[i]!.end = Math.max(segments[i]!.start, segments[i + 1]!.start);
  return { segments, speakers: [...labels].filter(([name]) => name !== "").map(([name, label]) => ({ label, name })) };
}
