import type { LabelledSegment } from "../transcripts/types.ts";
import { oneLine } from "../transcripts/normalize.ts";

/** A text transcript pasted or uploaded (web app, or imported through the API): at most 1 MB, 20,000 lines or cues, 50 speakers. */
export const MAX_TEXT_TRANSCRIPT_BYTES = 1024 * 1024;
export const MAX_TRANSCRIPT_LINES = 20_000;
export const MAX_TRANSCRIPT_SPEAKERS = 50;

export interface ParsedTextTranscript {
  segments: LabelledSegment[];
  /** Speaker labels in order of first appearance, with the name the text gave each. */
  speakers: { label: string; name: string }[];
}

/** One turn read from a transcript, before speakers become labels: its time, who (when said) and words. */
export interface Turn {
  start: number;
  /** Null when the source gives no end (a text line): it then ends where the next turn begins. */
  end: number | null;
  /** The speaker's name as the source gives it, or null when it names no one. */
  name: string | null;
  text: string;
}

// "[01:02:03] Alice: words", "(12:34) Bob - words", "Alice: words", or just words.
const TIME = /^\s*[[(]?((?:\d{1,2}:)?\d{1,2}:\d{2})(?:[.,]\d{1,3})?[\])]?\s*/;
const SPEAKER = /^([^:\n]{1,60}?)\s*:\s+(\S.*)$/s;

function seconds(clock: string): number {
  return clock.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

/** A leading "Name:" of a line or a cue's words: the name and the words after it, or null. */
export function speakerPrefix(words: string): { name: string; text: string } | null {
  const named = SPEAKER.exec(words.trim());
  return named ? { name: named[1]!, text: named[2]! } : null;
}

/**
 * Reads a text transcript into segments: one per non-empty line, its speaker from a leading
 * "Name:" (else the previous line's speaker), its start from a leading [hh:mm:ss] or (mm:ss)
 * when there is one. A text has no audio: lines without a time start where the previous one did,
 * and each segment ends where the next begins. Names become SPEAKER_00, SPEAKER_01… labels, each
 * attributed to a participant of that name, so renaming works as for a recording.
 */
export function parseTextTranscript(text: string): ParsedTextTranscript {
  const lines = text.split(/\r\n|\r|\n/).slice(0, MAX_TRANSCRIPT_LINES);
  const turns: Turn[] = [];
  let start = 0;
  for (const raw of lines) {
    let line = raw;
    const time = TIME.exec(line);
    if (time) {
      start = seconds(time[1]!);
      line = line.slice(time[0].length);
    }
    const named = speakerPrefix(line);
    turns.push({ start, end: null, name: named?.name ?? null, text: named?.text ?? line });
  }
  return labelTurns(turns);
}

/**
 * Turns to labelled segments, the one place every transcript format's speakers are counted:
 * each name becomes SPEAKER_00, SPEAKER_01… in order of first appearance (at most 50; a later
 * name stays part of its words, "Name: words"); a turn that names no one keeps the previous
 * turn's speaker (SPEAKER_00, unnamed, at the start). Turns without words are left out; a turn
 * without an end ends where the next one begins.
 */
export function labelTurns(turns: readonly Turn[]): ParsedTextTranscript {
  const labels = new Map<string, string>();
  const segments: LabelledSegment[] = [];
  const open: boolean[] = [];
  let speaker = "";
  for (const turn of turns) {
    const name = turn.name === null ? "" : oneLine(turn.name);
    let words = turn.text;
    if (name && (labels.has(name) || labels.size < MAX_TRANSCRIPT_SPEAKERS)) {
      if (!labels.has(name)) labels.set(name, `SPEAKER_${String(labels.size).padStart(2, "0")}`);
      speaker = labels.get(name)!;
    } else if (name) {
      words = `${name}: ${words}`;
    }
    const text = oneLine(words);
    if (!text) continue;
    if (!speaker) {
      labels.set("", "SPEAKER_00");
      speaker = "SPEAKER_00";
    }
    segments.push({ start: turn.start, end: turn.end ?? turn.start, speaker, text });
    open.push(turn.end === null);
  }
  for (let i = 0; i < segments.length - 1; i++) {
    if (open[i]) segments[i]!.end = Math.max(segments[i]!.start, segments[i + 1]!.start);
  }
  return { segments, speakers: [...labels].filter(([name]) => name !== "").map(([name, label]) => ({ label, name })) };
}
