/**
 * What the report and the documents share when a meeting outgrows the model's context: the
 * transcript as timestamped lines, how many characters a token holds, the parts it is cut into
 * (on line boundaries, each with a prompt that fits), and the reduction of the parts' answers in
 * groups that fit, down to one, with a rule-based fallback when even two answers do not fit.
 */
import type { ReportInput } from "../types.ts";
import { packChunks, splitText, type Sized } from "./chunking.ts";
import { cleanText } from "./parse.ts";
import { formatTimestamp, formatTranscriptLine, needsHours } from "./prompt.ts";

export interface TranscriptLine {
  text: string;
  start: number;
  end: number;
}

/** "[mm:ss] SPEAKER: text" lines of the segments that say something ([h:mm:ss] past an hour). */
export function transcriptLines(segments: ReportInput["transcript"]): { lines: TranscriptLine[]; withHours: boolean } {
  const withHours = needsHours(segments);
  const lines = segments
    .filter((segment) => cleanText(segment.text).length > 0)
    .map((segment) => ({ text: formatTranscriptLine(segment, withHours), start: segment.start, end: segment.end }));
  return { lines, withHours };
}

/** Characters per token for this model on this text (1.5 to 4.5), measured on its first 20,000 characters. */
export function charsPerTokenOf(text: string, countTokens: (text: string) => number): number {
  const sample = text.slice(0, 20_000);
  return sample ? Math.min(4.5, Math.max(1.5, sample.length / Math.max(1, countTokens(sample)))) : 3;
}

/** Tokens reserved for each answer: 40% of the context (at most 2048) or `minimum`, never over 60%. */
export function outputBudgetFor(contextSize: number, minimum: number, configured?: number): number {
  return Math.min(configured ?? Math.min(2048, Math.max(Math.floor(contextSize * 0.4), minimum)), Math.floor(contextSize * 0.6));
}

export interface PlannedPart<P> {
  prompt: P;
  /** Timestamps of the part's first and last lines. */
  from: string;
  to: string;
}

/**
 * Cuts the lines into parts of at most `budget` tokens (a line longer than a part is cut at word
 * boundaries), as even as the sizes allow, and builds each part's prompt. Should a part's exact
 * prompt not fit, it packs again with less room (up to 8 rounds); null when nothing fits.
 */
export function planParts<P>(
  lines: readonly TranscriptLine[],
  budget: number,
  withHours: boolean,
  countTokens: (text: string) => number,
  promptFor: (body: string, part: { index: number; count: number; from: string; to: string }) => P,
  fits: (prompt: P) => boolean,
): PlannedPart<P>[] | null {
  const sized: Sized<TranscriptLine>[] = lines.flatMap((line) =>
    splitText(line.text, budget, countTokens).map((text) => ({ value: { ...line, text }, tokens: countTokens(text) + 1 })),
  );
  for (let room = budget, round = 0; round < 8; round++, room = Math.floor(room * 0.85)) {
    const chunks = packChunks(sized, room);
    const parts = chunks.map((chunk, index) => {
      const from = formatTimestamp(chunk[0]!.start, withHours);
      const to = formatTimestamp(chunk.at(-1)!.end, withHours);
      const body = chunk.map((line) => line.text).join("\n");
      return { prompt: promptFor(body, { index: index + 1, count: chunks.length, from, to }), from, to };
    });
    if (parts.every((part) => fits(part.prompt))) return parts;
  }
  return null;
}

export interface Reduction<T> {
  /** Whether `group` can be merged in one call (its prompt fits). */
  fits(group: T[]): boolean;
  merge(group: T[]): Promise<T>;
  /** The merge by rules, when no two items fit in one call. */
  fallback(items: T[]): T;
  /** Told how many more model calls the next round makes, for progress. */
  planned?(calls: number): void;
}

/**
 * Merges the items into one: all at once when they fit, else in consecutive groups that fit,
 * round after round; by rules when no two fit together. Says which way it went.
 */
export async function reduceInGroups<T>(items: T[], r: Reduction<T>): Promise<{ result: T; merge: "none" | "model" | "deterministic" }> {
  let current = items;
  let merge: "none" | "model" | "deterministic" = "none";
  while (current.length > 1) {
    if (r.fits(current)) return { result: await r.merge(current), merge: "model" };
    const groups: T[][] = [];
    for (const item of current) {
      const last = groups.at(-1);
      if (last && r.fits([...last, item])) last.push(item);
      else groups.push([item]);
    }
    if (groups.every((group) => group.length === 1)) return { result: r.fallback(current), merge: "deterministic" };
    merge = "model";
    r.planned?.(groups.filter((group) => group.length > 1).length);
    const next: T[] = [];
    for (const group of groups) next.push(group.length === 1 ? group[0]! : await r.merge(group));
    current = next;
  }
  return { result: current[0]!, merge };
}
