import type { SpeechSegment, StoredTranscript, TimedWord } from "../transcripts/types.ts";
import { detect } from "./detect.ts";
import { acceptFound, chunkTexts, participantLiterals } from "./names.ts";
import type { Match } from "./match.ts";
import { emptyPlaceholders, placeholderFor } from "./placeholders.ts";
import type {
  EntityFinder,
  EntityKind,
  PlaceholderMap,
  RedactableSegment,
  RedactableTranscript,
  RedactionRequest,
  RedactionSummary,
  SilenceSpan,
} from "./types.ts";

export { emptyPlaceholders } from "./placeholders.ts";

/** Segments are read as one text, joined by a space, so an entity cut across two segments is still found. */
const SEPARATOR = " ";

export interface RedactionContext {
  /** The meeting's participants: their names (and first or last names alone) are always persons. */
  participantNames: string[];
  /** The local LLM's finder of names and addresses, or null (then only the participants' names are persons). */
  finder: EntityFinder | null;
  signal?: AbortSignal;
}

export interface RedactedTranscript {
  transcript: RedactableTranscript;
  summary: RedactionSummary;
  /** Where the audio must be silenced, in time order, overlapping spans merged (no pad: the caller adds it). */
  spans: SilenceSpan[];
  /** The meeting's placeholders, for redactText on its report and documents. In memory only: it holds the raw values. */
  placeholders: PlaceholderMap;
}

/**
 * Where the entities of the requested kinds are in the transcript's text (its segments joined by a
 * space): the participants' names, what the finder names (checked against the text), then every
 * recogniser over the whole text at once. Matches are in text order and do not overlap.
 */
export async function locateEntities(
  transcript: RedactableTranscript,
  request: RedactionRequest,
  context: RedactionContext,
): Promise<{ text: string; matches: Match[]; placeholders: PlaceholderMap }> {
  const map = emptyPlaceholders(transcript.language);
  const wanted = new Set(request.entities);
  if (wanted.has("person")) map.literals.push(...participantLiterals(context.participantNames));

  const texts = transcript.segments.map((segment) => segment.text);
  const askFor = (["person", "address"] as const).filter((kind) => wanted.has(kind));
  if (context.finder && askFor.length) {
    for (const chunk of chunkTexts(texts)) {
      context.signal?.throwIfAborted();
      const answers = await context.finder.find(chunk, [...askFor], context.signal);
      map.literals.push(...acceptFound(answers, chunk, askFor));
    }
  }
  context.signal?.throwIfAborted();
  const text = texts.join(SEPARATOR);
  return { text, matches: detect(text, request, map), placeholders: map };
}

/**
 * The transcript with every entity of the requested kinds replaced by its placeholder, in the
 * segments' text and in their words, with the time spans of the redacted words. Linear in the
 * transcript's length (one detection pass over the joined text, one sweep to apply it).
 */
export async function redactTranscript(transcript: RedactableTranscript, request: RedactionRequest, context: RedactionContext): Promise<RedactedTranscript> {
  const { matches, placeholders: map } = await locateEntities(transcript, request, context);
  const placeholders = matches.map((match) => placeholderFor(map, match.kind, match.key));

  const segments: RedactableSegment[] = [];
  const spans: SilenceSpan[] = [];
  let offset = 0;
  let next = 0;
  for (const segment of transcript.segments) {
    const from = offset;
    const to = from + segment.text.length;
    offset = to + SEPARATOR.length;
    while (next < matches.length && matches[next]!.end <= from) next += 1;
    const pieces: Piece[] = [];
    for (let i = next; i < matches.length && matches[i]!.start < to; i++) {
      const match = matches[i]!;
      pieces.push({ start: Math.max(match.start, from) - from, end: Math.min(match.end, to) - from, placeholder: match.start >= from ? placeholders[i]! : "" });
    }
    if (!pieces.length) {
      segments.push(segment);
      continue;
    }
    const redacted = redactSegment(segment, pieces, spans);
    if (redacted.text) segments.push(redacted);
  }

  return {
    transcript: { ...transcript, segments },
    summary: { entities: countDistinct(matches), audio: request.audio },
    spans: mergeSpans(spans),
    placeholders: map,
  };
}

/**
 * Another text of the meeting (its report, a document) with the same placeholders: the structured
 * kinds found afresh, the persons and addresses the transcript's redaction knew. A value seen for
 * the first time gets the next number of its kind.
 */
export function redactText(text: string, request: RedactionRequest, placeholders: PlaceholderMap): { text: string } {
  const matches = detect(text, request, placeholders);
  let out = "";
  let cursor = 0;
  for (const match of matches) {
    out += text.slice(cursor, match.start) + placeholderFor(placeholders, match.kind, match.key);
    cursor = match.end;
  }
  return { text: out + text.slice(cursor) };
}

/** Rounding slack between the stored segments' times (milliseconds) and the words' own. */
const TIME_SLACK = 0.002;

/**
 * The stored transcript with each segment's words put back from the transcription's segments (the
 * stored transcript keeps none): the words that lie within the segment's time, in order. Where they
 * do not spell the segment's text, redactTranscript drops them and estimates the spans instead.
 */
export function withWords(transcript: StoredTranscript, speech: readonly SpeechSegment[]): RedactableTranscript {
  const words = speech.flatMap((segment) => segment.words ?? []).sort((a, b) => a.start - b.start || a.end - b.end);
  const segments = transcript.segments.map((segment) => {
    // The first word starting in the segment (binary search), then those that end within it.
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (words[mid]!.start < segment.start - TIME_SLACK) lo = mid + 1;
      else hi = mid;
    }
    const own: TimedWord[] = [];
    for (let i = lo; i < words.length && words[i]!.start <= segment.end + TIME_SLACK; i++) {
      if (words[i]!.end <= segment.end + TIME_SLACK && words[i]!.text.trim()) own.push(words[i]!);
    }
    return own.length ? { ...segment, words: own } : segment;
  });
  return { ...transcript, segments };
}

/** A redacted stretch of one segment (offsets in its text); an empty placeholder continues an entity begun before it. */
interface Piece {
  start: number;
  end: number;
  placeholder: string;
}

function replacePieces(text: string, base: number, pieces: Piece[], placed: Set<Piece>): string {
  let out = "";
  let cursor = 0;
  for (const piece of pieces) {
    const start = Math.max(piece.start - base, 0);
    const end = Math.min(piece.end - base, text.length);
    if (end <= 0 || start >= text.length) continue;
    out += text.slice(cursor, start);
    if (!placed.has(piece)) {
      out += piece.placeholder;
      placed.add(piece);
    }
    cursor = end;
  }
  return out + text.slice(cursor);
}

function redactSegment(segment: RedactableSegment, pieces: Piece[], spans: SilenceSpan[]): RedactableSegment {
  const text = replacePieces(segment.text, 0, pieces, new Set()).trim();
  const located = segment.words ? locateWords(segment.text, segment.words) : null;
  if (!located) {
    // No word timings that line up with the text: the span is estimated from where the characters
    // sit in the segment, and no words are kept (they would still hold the raw value).
    const length = Math.max(segment.text.length, 1);
    const duration = segment.end - segment.start;
    for (const piece of pieces) spans.push({ start: segment.start + (duration * piece.start) / length, end: segment.start + (duration * piece.end) / length });
    const { words: _dropped, ...rest } = segment;
    return { ...rest, text };
  }
  const placed = new Set<Piece>();
  const words: TimedWord[] = [];
  for (const { word, start, end } of located) {
    const hit = pieces.filter((piece) => piece.start < end && piece.end > start);
    if (!hit.length) {
      words.push(word);
      continue;
    }
    for (const piece of hit) spans.push({ start: word.start, end: word.end });
    const lead = word.text.length - word.text.trimStart().length;
    const body = replacePieces(word.text.trimStart(), start, hit, placed);
    const previous = words.at(-1);
    // A word wholly inside an entity whose placeholder an earlier word carries: it joins that word.
    if (!body.trim() && previous) previous.end = Math.max(previous.end, word.end);
    else if (body.trim()) words.push({ ...word, text: word.text.slice(0, lead) + body });
  }
  return { ...segment, text, words };
}

/** Each word's place in the segment's text, or null when the words do not spell the text in order. */
function locateWords(text: string, words: TimedWord[]): { word: TimedWord; start: number; end: number }[] | null {
  const located: { word: TimedWord; start: number; end: number }[] = [];
  let cursor = 0;
  for (const word of words) {
    const body = word.text.trim();
    if (!body) {
      located.push({ word, start: cursor, end: cursor });
      continue;
    }
    const at = text.indexOf(body, cursor);
    if (at < 0 || text.slice(cursor, at).trim()) return null;
    located.push({ word, start: at, end: at + body.length });
    cursor = at + body.length;
  }
  return text.slice(cursor).trim() ? null : located;
}

function countDistinct(matches: Match[]): Partial<Record<EntityKind, number>> {
  const seen = new Map<EntityKind, Set<string>>();
  for (const match of matches) {
    const keys = seen.get(match.kind) ?? new Set<string>();
    keys.add(match.key);
    seen.set(match.kind, keys);
  }
  return Object.fromEntries([...seen].map(([kind, keys]) => [kind, keys.size]));
}

function mergeSpans(spans: SilenceSpan[]): SilenceSpan[] {
  const merged: SilenceSpan[] = [];
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged.map((span) => ({ start: round(span.start), end: round(span.end) }));
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
