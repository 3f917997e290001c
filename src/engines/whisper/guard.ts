import type { SpeechSegment } from "../types.ts";

/**
 * Repetition guard: whisper, decoding greedily without fallback, sometimes loops ("the the the
 * ...", a phrase over and over, or the same line as several segments in a row). This cuts such
 * loops after the fact.
 */
export interface RepetitionGuardOptions {
  /** A word n-gram (n ≤ maxNgram) seen this many times in a row is cut to one occurrence. */
  minRepeats: number;
  maxNgram: number;
  /** A run of the same 1..maxPeriod characters repeated this many times in a row inside a word is cut to one. */
  minCharRepeats: number;
  maxCharPeriod: number;
  /** A segment whose text equals each of the previous `maxIdenticalInRow` segments' is dropped. */
  maxIdenticalInRow: number;
}

export const DEFAULT_GUARD: Readonly<RepetitionGuardOptions> = Object.freeze({
  minRepeats: 4,
  maxNgram: 8,
  minCharRepeats: 6,
  maxCharPeriod: 12,
  maxIdenticalInRow: 2,
});

/** Lower case, letters and digits only: "Thank you." and "thank you" compare equal. */
export function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]+/gu, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Indexes of the units to keep after cutting every run of a repeated n-gram (compared
 * normalised) to its first occurrence. Shorter n-grams are handled first.
 */
export function collapseRepeats(units: string[], minRepeats: number, maxNgram: number): number[] {
  let keep = units.map((_, i) => i);
  for (let n = 1; n <= maxNgram; n++) {
    const keys = keep.map((i) => normaliseText(units[i]!));
    const out: number[] = [];
    let i = 0;
    while (i < keep.length) {
      let repeats = 1;
      if (i + 2 * n <= keep.length && keys.slice(i, i + n).some((k) => k !== "")) {
        const gram = keys.slice(i, i + n).join("\u0000");
        while (i + (repeats + 1) * n <= keep.length && keys.slice(i + repeats * n, i + (repeats + 1) * n).join("\u0000") === gram) repeats++;
      }
      if (repeats >= minRepeats) {
        out.push(...keep.slice(i, i + n));
        i += repeats * n;
      } else {
        out.push(keep[i]!);
        i++;
      }
    }
    keep = out;
  }
  return keep;
}

/**
 * Cuts a run of a short character pattern repeated many times ("uezuezuezuez…") to one
 * occurrence. Digits are left alone: "1000000" is not a loop.
 */
export function collapseCharRepeats(text: string, minRepeats: number, maxPeriod: number): string {
  const pattern = new RegExp(`([^\\p{N}]{1,${maxPeriod}}?)\\1{${minRepeats - 1},}`, "gu");
  return text.replace(pattern, "$1");
}

function applyToSegment(segment: SpeechSegment, options: RepetitionGuardOptions): SpeechSegment | null {
  const chars = (text: string) => collapseCharRepeats(text, options.minCharRepeats, options.maxCharPeriod);
  if (segment.words && segment.words.length > 0) {
    const words = segment.words.map((w) => ({ ...w, text: chars(w.text) }));
    const kept = collapseRepeats(
      words.map((w) => w.text),
      options.minRepeats,
      options.maxNgram,
    ).map((i) => words[i]!);
    if (kept.length === words.length && kept.every((w, i) => w.text === segment.words![i]!.text)) {
      const text = chars(segment.text).trim();
      return normaliseText(text) === "" ? null : { ...segment, text };
    }
    const text = kept.map((w) => w.text.trim()).filter(Boolean).join(" ");
    if (normaliseText(text) === "") return null;
    const lastEnd = kept.at(-1)!.end;
    return { start: segment.start, end: lastEnd > segment.start ? Math.min(segment.end, lastEnd) : segment.end, text, words: kept };
  }
  const units = chars(segment.text).trim().split(/\s+/).filter(Boolean);
  const text = collapseRepeats(units, options.minRepeats, options.maxNgram)
    .map((i) => units[i]!)
    .join(" ");
  if (normaliseText(text) === "") return null;
  return { ...segment, text: text === segment.text.trim() ? segment.text.trim() : text };
}

/**
 * Applies the guard to segments in time order: loops inside a segment are cut, segments left
 * with no letters or digits are dropped, and so is a segment repeating the text of each of the
 * previous `maxIdenticalInRow` kept segments.
 */
export function repetitionGuard(segments: SpeechSegment[], options: Partial<RepetitionGuardOptions> = {}): SpeechSegment[] {
  const resolved: RepetitionGuardOptions = { ...DEFAULT_GUARD, ...options };
  const out: SpeechSegment[] = [];
  for (const segment of segments) {
    const cleaned = applyToSegment(segment, resolved);
    if (!cleaned) continue;
    const key = normaliseText(cleaned.text);
    const previous = out.slice(-resolved.maxIdenticalInRow);
    if (previous.length === resolved.maxIdenticalInRow && previous.every((p) => normaliseText(p.text) === key)) continue;
    out.push(cleaned);
  }
  return out;
}
