import type { Match } from "./match.ts";

/**
 * An account's case or file number pattern is a regular expression written by a person and run
 * over every meeting's text in the shared worker, so it is held to a small, safe subset of the
 * syntax (docs/decisions.md, "Case number patterns"): no unbounded repetition (`*`, `+`, `{n,}`),
 * no back-references or look-arounds, no quantifier on a group that holds one, at most 64
 * characters matched, at least 3. Backtracking is then bounded at each position, and the scan
 * also stops at a deadline.
 */
export const CASE_PATTERN_LIMITS = { sourceChars: 200, minMatch: 3, maxMatch: 64, maxRepeat: 32, variableQuantifiers: 6 } as const;

/** Time the scan of one text may take (a 30-minute transcript is about 30,000 characters). */
const SCAN_DEADLINE_MS = 2000;

export class CasePatternError extends Error {
  override name = "CasePatternError";
}

interface Shape {
  min: number;
  max: number;
  quantified: boolean;
}

/** Reads the pattern with the subset's grammar; throws CasePatternError with the reason it is refused. */
function shapeOf(source: string): Shape & { variable: number } {
  let i = 0;
  let variable = 0;
  const fail = (why: string): never => {
    throw new CasePatternError(`${why} (at character ${i + 1})`);
  };
  const alternation = (): Shape => {
    const first = sequence();
    let { min, max, quantified } = first;
    while (source[i] === "|") {
      i += 1;
      const next = sequence();
      min = Math.min(min, next.min);
      max = Math.max(max, next.max);
      quantified ||= next.quantified;
    }
    return { min, max, quantified };
  };
  const sequence = (): Shape => {
    let min = 0;
    let max = 0;
    let quantified = false;
    while (i < source.length && source[i] !== "|" && source[i] !== ")") {
      const atom = atomShape();
      const q = quantifier();
      if (q) {
        if (atom.quantified) fail("a repeated group may not hold a repetition itself");
        if (q.max !== q.min) variable += 1;
        quantified = true;
        min += atom.min * q.min;
        max += atom.max * q.max;
      } else {
        quantified ||= atom.quantified;
        min += atom.min;
        max += atom.max;
      }
    }
    return { min, max, quantified };
  };
  const atomShape = (): Shape => {
    const c = source[i]!;
    if (c === "(") {
      i += 1;
      if (source[i] === "?") {
        if (source.startsWith("?:", i)) i += 2;
        else if (/^\?<[A-Za-z]\w*>/.test(source.slice(i))) i = source.indexOf(">", i) + 1;
        else fail("look-arounds are not allowed");
      }
      const inner = alternation();
      if (source[i] !== ")") fail("a group is not closed");
      i += 1;
      return inner;
    }
    if (c === "[") {
      i += 1;
      if (source[i] === "^") i += 1;
      if (source[i] === "]") i += 1;
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
      if (source[i] !== "]") fail("a character class is not closed");
      i += 1;
      return { min: 1, max: 1, quantified: false };
    }
    if (c === "\\") {
      const e = source[i + 1];
      if (e === undefined) fail("the pattern ends with a backslash");
      if (/[1-9k]/.test(e!)) fail("back-references are not allowed");
      if (/[bB]/.test(e!)) {
        i += 2;
        return { min: 0, max: 0, quantified: false };
      }
      // A character by its code is one character; \p{…} and \c need the unicode flag or are obscure.
      const code = /^\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2})/.exec(source.slice(i));
      if (code) {
        i += code[0].length;
        return { min: 1, max: 1, quantified: false };
      }
      if (/[pPuxc0]/.test(e!)) fail(`the escape \\${e} is not allowed`);
      i += 2;
      return { min: 1, max: 1, quantified: false };
    }
    if (c === "*" || c === "+") fail("unbounded repetition (* or +) is not allowed: use {n,m}");
    if (c === "?" || c === "{") fail("a repetition must follow something to repeat");
    if (c === "^" || c === "$") fail("anchors are not allowed");
    i += 1;
    return { min: 1, max: 1, quantified: false };
  };
  const quantifier = (): { min: number; max: number } | null => {
    let q: { min: number; max: number } | null = null;
    if (source[i] === "?") {
      i += 1;
      q = { min: 0, max: 1 };
    } else if (source[i] === "{") {
      const m = /^\{(\d{1,3})(?:(,)(\d{1,3})?)?\}/.exec(source.slice(i));
      if (!m) fail("a repetition is written {n} or {n,m}");
      if (m![2] && m![3] === undefined) fail("unbounded repetition ({n,}) is not allowed: use {n,m}");
      const min = Number(m![1]);
      const max = m![3] === undefined ? min : Number(m![3]);
      if (max < min || max > CASE_PATTERN_LIMITS.maxRepeat) fail(`a repetition may go up to ${CASE_PATTERN_LIMITS.maxRepeat}`);
      i += m![0].length;
      q = { min, max };
    } else if (source[i] === "*" || source[i] === "+") fail("unbounded repetition (* or +) is not allowed: use {n,m}");
    if (q && source[i] === "?") i += 1;
    if (q && /^[?*+{]/.test(source.slice(i))) fail("a repetition may not be repeated");
    return q;
  };
  const shape = alternation();
  if (i < source.length) fail("a closing bracket has no opening one");
  return { ...shape, variable };
}

/**
 * Checks an account's case number pattern and compiles it, or throws CasePatternError saying why
 * not (for a 422's detail). Matching is case-insensitive.
 */
export function compileCasePattern(source: string): RegExp {
  if (source.length === 0 || source.length > CASE_PATTERN_LIMITS.sourceChars) throw new CasePatternError(`the pattern must have 1 to ${CASE_PATTERN_LIMITS.sourceChars} characters`);
  const shape = shapeOf(source);
  if (shape.min < CASE_PATTERN_LIMITS.minMatch) throw new CasePatternError(`the pattern must match at least ${CASE_PATTERN_LIMITS.minMatch} characters`);
  if (shape.max > CASE_PATTERN_LIMITS.maxMatch) throw new CasePatternError(`the pattern may match at most ${CASE_PATTERN_LIMITS.maxMatch} characters`);
  if (shape.variable > CASE_PATTERN_LIMITS.variableQuantifiers) throw new CasePatternError(`the pattern may have at most ${CASE_PATTERN_LIMITS.variableQuantifiers} repetitions of varying count`);
  try {
    return new RegExp(source, "iy");
  } catch (error) {
    throw new CasePatternError(`not a regular expression: ${(error as Error).message}`);
  }
}

const WORD = /[\p{L}\p{N}_]/u;

/**
 * The case numbers in `text`: the pattern tried at each word's edge (a case number starts at a
 * word's start or with a sign), a match counted only when it also ends at a word's edge.
 * Throws CasePatternError past the deadline: better to fail the redaction than to skip it.
 */
export function findCaseNumbers(text: string, source: string, now: () => number = performance.now.bind(performance)): Match[] {
  const pattern = compileCasePattern(source);
  const found: Match[] = [];
  const deadline = now() + SCAN_DEADLINE_MS;
  for (let at = 0; at < text.length; at++) {
    if ((at & 255) === 0 && now() > deadline) throw new CasePatternError("the case number pattern took too long on this text");
    if (at > 0 && WORD.test(text[at - 1]!) && WORD.test(text[at]!)) continue;
    pattern.lastIndex = at;
    const m = pattern.exec(text);
    if (!m || m[0].length === 0) continue;
    const end = at + m[0].length;
    if (WORD.test(text[end - 1]!) && WORD.test(text[end] ?? "")) continue;
    found.push({ kind: "case_number", start: at, end, key: m[0].toUpperCase().replace(/\s+/g, " ") });
    at = end - 1;
  }
  return found;
}
