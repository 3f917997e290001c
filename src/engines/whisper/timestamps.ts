import type { SpeechSegment } from "../types.ts";
import { type Chunk, mapToRecording } from "./chunks.ts";

type Word = NonNullable<SpeechSegment["words"]>[number];

/** A token as a backend reports it, times in seconds from the chunk's start. */
export interface ChunkToken {
  text: string;
  start: number;
  end: number;
}

/** A segment as a backend reports it, times in seconds from the chunk's start. */
export interface ChunkSegment {
  start: number;
  end: number;
  text: string;
  tokens?: ChunkToken[];
}

/** whisper.cpp's special tokens: [_BEG_], [_TT_123], [_SOT_], <|endoftext|>, <|en|>… */
const SPECIAL_TOKEN = /^\s*(\[_[A-Z0-9_]*\]|<\|[^|]*\|>)\s*$/;

/** Joins tokens into words: a token starting with a space (or the first) starts a word; others extend it. */
export function wordsFromTokens(tokens: ChunkToken[]): ChunkToken[] {
  const words: ChunkToken[] = [];
  for (const token of tokens) {
    if (SPECIAL_TOKEN.test(token.text) || token.text === "") continue;
    const current = words.at(-1);
    if (!current || /^\s/.test(token.text)) words.push({ text: token.text.trim(), start: token.start, end: token.end });
    else {
      current.text += token.text;
      current.end = Math.max(current.end, token.end);
    }
  }
  return words.filter((w) => w.text.trim() !== "").map((w) => ({ ...w, text: w.text.trim() }));
}

/** Maps a chunk's segments (and their words) to times on the recording. */
export function mapChunkSegments(chunk: Chunk, segments: ChunkSegment[], withWords: boolean): SpeechSegment[] {
  return segments.map((segment) => {
    const mapped: SpeechSegment = {
      start: mapToRecording(chunk, segment.start, "start"),
      end: mapToRecording(chunk, segment.end, "end"),
      text: segment.text.trim(),
    };
    if (withWords && segment.tokens) {
      mapped.words = wordsFromTokens(segment.tokens).map((w) => ({
        text: w.text,
        start: mapToRecording(chunk, w.start, "start"),
        end: mapToRecording(chunk, w.end, "end"),
      }));
    }
    return mapped;
  });
}

const ms = (t: number) => Math.round(t * 1000) / 1000;

function finaliseWords(words: Word[], start: number, end: number): Word[] {
  const out: Word[] = [];
  for (const word of [...words].sort((a, b) => a.start - b.start)) {
    const wordStart = ms(Math.max(start, out.at(-1)?.end ?? start, Math.min(end, word.start)));
    const wordEnd = ms(Math.min(end, Math.max(word.end, wordStart)));
    if (word.end < word.start || wordEnd < wordStart || word.text === "") continue;
    out.push({ start: wordStart, end: wordEnd, text: word.text });
  }
  return out;
}

/**
 * Clamps segments to [0, duration], orders them, and removes overlap: a segment starting inside
 * the previous one starts where it ends, and one wholly inside it is merged into it. Segments
 * with no duration or no text are dropped. Word times are clamped into their segment and
 * ordered. Times are rounded to milliseconds.
 */
export function finaliseSegments(segments: SpeechSegment[], durationSeconds: number): SpeechSegment[] {
  const clamp = (t: number) => Math.min(durationSeconds, Math.max(0, Number.isFinite(t) ? t : 0));
  const sorted = segments
    .map((s) => ({ ...s, start: clamp(s.start), end: clamp(s.end), text: s.text.trim() }))
    .filter((s) => s.text !== "" && s.end > s.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const out: SpeechSegment[] = [];
  for (const segment of sorted) {
    const previous = out.at(-1);
    let start = segment.start;
    if (previous && start < previous.end) {
      if (segment.end <= previous.end) {
        previous.text = `${previous.text} ${segment.text}`;
        if (previous.words && segment.words) previous.words = finaliseWords([...previous.words, ...segment.words], previous.start, previous.end);
        continue;
      }
      start = previous.end;
    }
    const startMs = ms(start);
    const endMs = ms(segment.end);
    if (endMs <= startMs) continue;
    const result: SpeechSegment = { start: startMs, end: endMs, text: segment.text };
    if (segment.words) result.words = finaliseWords(segment.words, startMs, endMs);
    out.push(result);
  }
  return out;
}
