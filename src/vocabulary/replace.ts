/**
 * Spoken variants to their term, in a finished transcript's words (issue 23). Pure: the meetings
 * domain calls it where a transcript is stored (meetings/vocabulary-store.ts) and records each
 * change as a correction by the system.
 *
 * Matching is by whole words, case-insensitive, a multi-word variant across the spaces between
 * words of one segment; the longest variant wins where two could start at the same word, and
 * where two terms claim the same variant the older term (listed first) wins. The replacement is
 * the term as written in the glossary. Words are compared by these rules rather than by one
 * regular expression of every variant: 500 terms of 10 variants would be a 5,000-way alternation
 * tried at every character of every segment.
 */

export interface GlossaryEntry {
  term: string;
  variants: readonly string[];
}

/** One word of a text: where it is, and how it compares. */
interface Word {
  start: number;
  end: number;
  key: string;
}

/** A run of letters, marks and digits, with apostrophes or hyphens inside it (O'Brien, follow-up). */
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’\-][\p{L}\p{M}\p{N}]+)*/gu;

function fold(text: string): string {
  return text.normalize("NFC").toLocaleLowerCase("und");
}

function wordsOf(text: string): Word[] {
  return [...text.matchAll(WORD)].map((m) => ({ start: m.index, end: m.index + m[0].length, key: fold(m[0]) }));
}

interface Variant {
  /** The variant's words after the first, folded. */
  rest: string[];
  term: string;
}

/** The variants by their first word, each list longest first. */
export type Matcher = Map<string, Variant[]>;

export function buildMatcher(glossary: readonly GlossaryEntry[]): Matcher {
  const byFirst: Matcher = new Map();
  const seen = new Set<string>();
  for (const entry of glossary) {
    for (const variant of entry.variants) {
      const words = wordsOf(variant).map((w) => w.key);
      const joined = words.join(" ");
      // A variant spelled like its term would "replace" a word by itself: nothing to do.
      if (words.length === 0 || seen.has(joined) || joined === wordsOf(entry.term).map((w) => w.key).join(" ")) continue;
      seen.add(joined);
      const list = byFirst.get(words[0]!) ?? [];
      list.push({ rest: words.slice(1), term: entry.term });
      byFirst.set(words[0]!, list);
    }
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.rest.length - a.rest.length);
  return byFirst;
}

/** Only spaces between the words of a multi-word variant: "cooper. Netties" is two sentences, not a variant. */
const SPACES_ONLY = /^\s+$/u;

/**
 * The text with every known variant replaced by its term, and how many were replaced. Text between
 * and around the matches (punctuation, spacing) is kept as it was.
 */
export function replaceVariants(text: string, matcher: Matcher): { text: string; replaced: number } {
  if (matcher.size === 0) return { text, replaced: 0 };
  const words = wordsOf(text);
  let out = "";
  let copiedTo = 0;
  let replaced = 0;
  for (let i = 0; i < words.length; ) {
    const match = matchAt(text, words, i, matcher);
    if (!match) {
      i++;
      continue;
    }
    out += text.slice(copiedTo, words[i]!.start) + match.term;
    copiedTo = words[i + match.length - 1]!.end;
    replaced++;
    i += match.length;
  }
  return { text: replaced === 0 ? text : out + text.slice(copiedTo), replaced };
}

function matchAt(text: string, words: Word[], i: number, matcher: Matcher): { term: string; length: number } | null {
  const candidates = matcher.get(words[i]!.key);
  if (!candidates) return null;
  for (const candidate of candidates) {
    let ok = true;
    for (let k = 0; k < candidate.rest.length && ok; k++) {
      const previous = words[i + k]!;
      const next = words[i + k + 1];
      ok = next !== undefined && next.key === candidate.rest[k] && SPACES_ONLY.test(text.slice(previous.end, next.start));
    }
    if (ok) return { term: candidate.term, length: candidate.rest.length + 1 };
  }
  return null;
}

/** A timed word as a transcript segment may carry it (the words of TimedWord). */
export interface TimedText {
  start: number;
  end: number;
  text: string;
}

/**
 * The same replacement over a segment's timed words, where it has them: the words a variant spans
 * become one word holding the term, from the first one's start to the last one's end, so every
 * word's timing still says when it was said.
 */
export function replaceInWords<W extends TimedText>(words: readonly W[], matcher: Matcher): W[] {
  if (matcher.size === 0) return [...words];
  const span = 1 + longestRest(matcher);
  const out: W[] = [];
  for (let i = 0; i < words.length; ) {
    const merged = mergeAt(words, i, span, matcher);
    out.push(merged?.word ?? words[i]!);
    i += merged?.length ?? 1;
  }
  return out;
}

/** The longest run of timed words from `i` that is exactly one variant, as one word holding its term. */
function mergeAt<W extends TimedText>(words: readonly W[], i: number, span: number, matcher: Matcher): { word: W; length: number } | null {
  for (let n = Math.min(words.length - i, span); n >= 1; n--) {
    const run = words.slice(i, i + n);
    const joined = run.map((w) => w.text.trim()).join(" ");
    const inner = wordsOf(joined);
    // Each timed word holds one word at most here: a run whose words are not the run's own is no match.
    if (inner.length !== n) continue;
    const match = matchAt(joined, inner, 0, matcher);
    if (!match || match.length !== n) continue;
    const text = (run[0]!.text.match(/^\s*/u)?.[0] ?? "") + joined.slice(0, inner[0]!.start) + match.term + joined.slice(inner.at(-1)!.end);
    return { word: { ...run[0]!, end: run.at(-1)!.end, text }, length: n };
  }
  return null;
}

function longestRest(matcher: Matcher): number {
  let longest = 0;
  for (const list of matcher.values()) longest = Math.max(longest, list[0]!.rest.length);
  return longest;
}
