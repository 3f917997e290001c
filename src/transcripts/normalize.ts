/**
 * Shared clean-up applied before any format is written, so every format shows the same times,
 * order and text:
 * - Times become integer milliseconds: rounded (not truncated) after removing binary float noise,
 *   so 12.340000000000001 s is 12 340 ms and 3724.9996 s is 3 725 000 ms. Negative, NaN and
 *   infinite times become 0; absurd ones are capped at MAX_MS (31 years) to keep integers exact.
 * - An end before its start is raised to the start (cue formats then add 1 ms, see cueEnd).
 * - Segments are sorted by start; segments starting at the same millisecond keep their stored order.
 * - Display text is one line: any run of whitespace holding a line break becomes one space,
 *   the characters XML 1.0 forbids (C0 controls other than tab, U+FFFE, U+FFFF) and DEL are
 *   dropped, a lone surrogate becomes U+FFFD, and the ends are trimmed.
 * - The speaker shown is speaker_name when set (and not blank), else the label.
 */
import { xmlSafeText } from "../lib/xml-text.ts";
import type { TranscriptSegment } from "./types.ts";

export const MAX_MS = 1e12;

/** Seconds (any number, possibly noisy or invalid) to a non-negative integer count of milliseconds. */
export function secondsToMs(seconds: number): number {
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds <= 0) return 0;
  if (seconds >= MAX_MS / 1000) return MAX_MS;
  // toFixed(6) first: 1.0005 * 1000 is 1000.4999999999999 in binary; the intended 1000.5 rounds up.
  return Math.round(Number((seconds * 1000).toFixed(6)));
}

/** A segment with sane integer-millisecond times and its one-line display fields. */
export interface NormalizedSegment {
  startMs: number;
  /** Never before startMs; may equal it. */
  endMs: number;
  speaker: string;
  speakerName: string | null;
  /** speaker_name when set, else the label; one line. */
  displayName: string;
  /** The stored text unchanged. */
  rawText: string;
  /** The text on one line, trimmed; may be empty. */
  text: string;
}

export function normalizeSegments(segments: readonly TranscriptSegment[]): NormalizedSegment[] {
  return segments
    .map((segment, position) => {
      const startMs = secondsToMs(segment.start);
      const endMs = Math.max(startMs, secondsToMs(segment.end));
      const speaker = typeof segment.speaker === "string" ? segment.speaker : "";
      const speakerName = typeof segment.speaker_name === "string" ? segment.speaker_name : null;
      const rawText = typeof segment.text === "string" ? segment.text : "";
      const displayName = oneLine(speakerName ?? "") || oneLine(speaker) || "Unknown speaker";
      return { position, value: { startMs, endMs, speaker, speakerName, displayName, rawText, text: oneLine(rawText) } };
    })
    .sort((a, b) => a.value.startMs - b.value.startMs || a.position - b.position)
    .map(({ value }) => value);
}

/** Segments worth showing in the text formats: those with some text. */
export function spokenSegments(segments: readonly TranscriptSegment[]): NormalizedSegment[] {
  return normalizeSegments(segments).filter((segment) => segment.text !== "");
}

/** Cue end for SRT and WebVTT, where a cue must end after it starts: at least 1 ms long. */
export function cueEnd(segment: NormalizedSegment): number {
  return Math.max(segment.endMs, segment.startMs + 1);
}

const PAGE_BREAK = /[\u000B\u000C]/g;
const DELETE = /\u007F/g;
const BREAK_RUN = /\s*[\n\r\u0085\u2028\u2029]\s*/g;

/**
 * Text on a single line: line breaks (with the whitespace around them) become one space; vertical
 * tab and form feed break lines too. Every other character XML forbids goes (lib/xml-text.ts: the
 * other C0 controls, U+FFFE, U+FFFF; a lone surrogate becomes U+FFFD), and DEL with them.
 */
export function oneLine(text: string): string {
  return xmlSafeText(text.replace(PAGE_BREAK, "\n")).replace(DELETE, "").replace(BREAK_RUN, " ").trim();
}

const pad = (value: number, width: number) => String(value).padStart(width, "0");

/** HH:MM:SS (hours widen past 99), the whole seconds of a millisecond time. */
export function clock(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor(ms / 60_000) % 60;
  const seconds = Math.floor(ms / 1000) % 60;
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}`;
}

/** HH:MM:SS plus separator and milliseconds: HH:MM:SS,mmm for SRT, HH:MM:SS.mmm for WebVTT. */
export function clockMs(ms: number, separator: "," | "."): string {
  return `${clock(ms)}${separator}${pad(ms % 1000, 3)}`;
}

/** h:mm:ss for a duration in seconds (rounded to the second). */
export function duration(totalSeconds: number): string {
  const whole = Math.round(totalSeconds);
  return `${Math.floor(whole / 3600)}:${pad(Math.floor(whole / 60) % 60, 2)}:${pad(whole % 60, 2)}`;
}
