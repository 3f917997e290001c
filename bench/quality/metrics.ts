/**
 * Quality metrics of a transcript against a reference: word error rate, speaker attribution and
 * diarization error rate, plus the parsers of the reference formats. Pure functions, no I/O.
 *
 * Conventions (also in bench/quality/README.md):
 *
 * - Text is compared after `normalizeText`: NFKC, lower case, punctuation and symbols removed
 *   (replaced by a space, so "hello,world" is two words and "peut-être" is "peut être"), except an
 *   apostrophe inside a word ("don't", "l'équipe", "aujourd'hui" stay ONE token each, in reference
 *   and hypothesis alike) and a "." or "," between two digits ("12.5", "1,000", "3,5"). Typographic
 *   apostrophes (’ ‘ ʼ ´ `) count as "'". Numbers are left as they are: "12" and "twelve" differ.
 * - Scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar, Tibetan)
 *   are scored one character per token, so for Chinese, Japanese or Thai the "WER" is a
 *   character error rate; other text is split on white space.
 * - Speaker metrics use exact interval arithmetic over the elementary segments between all turn
 *   boundaries, with every boundary first rounded to a grid (`gridSeconds`, default 0.01 s: the
 *   result equals that of a 10 ms frame grid). A reference speaker's own overlapping turns are
 *   merged; where several reference speakers talk at once, each of them counts (speaker time).
 * - Hypothesis labels are mapped one-to-one onto reference speakers so as to maximise the time
 *   they talk together (Hungarian algorithm); extra hypothesis labels stay unmapped (null).
 */

// ---------------------------------------------------------------------------------------------
// Text

/** Scripts scored per character: their words are not separated by spaces. U+30FC is the ー mark. */
const CHARACTER_SCRIPTS =
  "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}\\p{Script=Tibetan}\\u30FC";
const TOKEN = new RegExp(`[${CHARACTER_SCRIPTS}]\\p{M}*|[^\\s${CHARACTER_SCRIPTS}]+`, "gu");
const APOSTROPHE_VARIANTS = /[\u2018\u2019\u02BC\u0060\u00B4\u2032]/g;
/** An apostrophe not between two word characters (quotes, "dogs'", "'tis"). */
const LOOSE_APOSTROPHE = /(?<![\p{L}\p{M}\p{N}])'|'(?![\p{L}\p{M}\p{N}])/gu;
/** A "." or "," not between two digits. */
const LOOSE_SEPARATOR = /(?<!\p{N})[.,]|[.,](?!\p{N})/gu;
/** Anything but letters, marks, digits, white space and the kept apostrophes and separators. */
const OTHER = /[^\p{L}\p{M}\p{N}\s'.,]/gu;

function lowerCase(text: string, language?: string): string {
  if (language && language !== "auto") {
    try {
      return text.toLocaleLowerCase(language);
    } catch {
      // not a valid locale tag: fall through to the default
    }
  }
  return text.toLowerCase();
}

/**
 * Text as compared for WER: NFKC, lower case (in `language`'s locale when it is a valid tag, so
 * Turkish "I" becomes "ı"), punctuation and symbols replaced by spaces except word-internal
 * apostrophes and digit-internal "." and ",", white space collapsed. Numbers are not spelled out.
 */
export function normalizeText(text: string, language?: string): string {
  let s = lowerCase(text.normalize("NFKC"), language);
  s = s.replace(APOSTROPHE_VARIANTS, "'");
  s = s.replace(LOOSE_APOSTROPHE, " ");
  s = s.replace(LOOSE_SEPARATOR, " ");
  s = s.replace(OTHER, " ");
  return s.replace(/\s+/gu, " ").trim();
}

/** The tokens WER counts: words of the normalized text, single characters of unspaced scripts. */
export function tokenize(text: string, language?: string): string[] {
  return normalizeText(text, language).match(TOKEN) ?? [];
}

export interface WerResult {
  /** (substitutions + deletions + insertions) / referenceWords; can exceed 1. See wordErrorRate for an empty reference. */
  wer: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  /** Reference words recognised exactly. */
  hits: number;
  referenceWords: number;
  hypothesisWords: number;
}

/**
 * Word error rate from a minimum-edit-distance (Levenshtein) alignment of the tokens. Strings are
 * normalized and tokenized (`tokenize`, in `language`); arrays are taken as tokens already.
 * Among alignments of equal cost the counts favour a substitution, then a deletion, then an
 * insertion (the total is the same for all of them).
 *
 * An empty reference has no denominator: wer is 0 when the hypothesis is empty too and 1 when it
 * is not (its words are still counted as insertions).
 *
 * Memory is linear (two rows), time is reference × hypothesis words: ~1 s for two 10,000-word texts.
 */
export function wordErrorRate(reference: string | string[], hypothesis: string | string[], options: { language?: string } = {}): WerResult {
  const ref = typeof reference === "string" ? tokenize(reference, options.language) : reference;
  const hyp = typeof hypothesis === "string" ? tokenize(hypothesis, options.language) : hypothesis;
  const ids = new Map<string, number>();
  const intern = (w: string) => {
    let id = ids.get(w);
    if (id === undefined) ids.set(w, (id = ids.size));
    return id;
  };
  const r = Int32Array.from(ref, intern);
  const h = Int32Array.from(hyp, intern);
  const n = r.length;
  const m = h.length;

  // Row i holds, for every hypothesis prefix j, the best cost of aligning ref[0..i) with hyp[0..j)
  // and the substitutions / deletions / insertions of that alignment.
  let cost = new Int32Array(m + 1), sub = new Int32Array(m + 1), del = new Int32Array(m + 1), ins = new Int32Array(m + 1);
  let nCost = new Int32Array(m + 1), nSub = new Int32Array(m + 1), nDel = new Int32Array(m + 1), nIns = new Int32Array(m + 1);
  for (let j = 0; j <= m; j++) {
    cost[j] = j;
    ins[j] = j;
  }
  for (let i = 1; i <= n; i++) {
    nCost[0] = i;
    nSub[0] = 0;
    nDel[0] = i;
    nIns[0] = 0;
    const word = r[i - 1]!;
    for (let j = 1; j <= m; j++) {
      const mismatch = word === h[j - 1] ? 0 : 1;
      const diagonal = cost[j - 1]! + mismatch;
      const up = cost[j]! + 1; // deletion of the reference word
      const left = nCost[j - 1]! + 1; // insertion of the hypothesis word
      if (diagonal <= up && diagonal <= left) {
        nCost[j] = diagonal;
        nSub[j] = sub[j - 1]! + mismatch;
        nDel[j] = del[j - 1]!;
        nIns[j] = ins[j - 1]!;
      } else if (up <= left) {
        nCost[j] = up;
        nSub[j] = sub[j]!;
        nDel[j] = del[j]! + 1;
        nIns[j] = ins[j]!;
      } else {
        nCost[j] = left;
        nSub[j] = nSub[j - 1]!;
        nDel[j] = nDel[j - 1]!;
        nIns[j] = nIns[j - 1]! + 1;
      }
    }
    [cost, nCost] = [nCost, cost];
    [sub, nSub] = [nSub, sub];
    [del, nDel] = [nDel, del];
    [ins, nIns] = [nIns, ins];
  }
  const substitutions = sub[m]!;
  const deletions = del[m]!;
  const insertions = ins[m]!;
  const errors = substitutions + deletions + insertions;
  return {
    wer: n > 0 ? errors / n : m > 0 ? 1 : 0,
    substitutions,
    deletions,
    insertions,
    hits: n - substitutions - deletions,
    referenceWords: n,
    hypothesisWords: m,
  };
}

// ---------------------------------------------------------------------------------------------
// Assignment

/**
 * Hungarian algorithm (Kuhn-Munkres with potentials, O(n²·m)): the assignment of rows to distinct
 * columns with the least total cost. Rectangular matrices are fine: with more rows than columns
 * some rows get -1. Returns, for each row, its column (or -1).
 */
export function hungarian(cost: number[][]): number[] {
  const rows = cost.length;
  const cols = rows ? cost[0]!.length : 0;
  if (rows === 0) return [];
  if (cols === 0) return new Array(rows).fill(-1);
  for (const row of cost) {
    if (row.length !== cols) throw new Error("hungarian: every row needs the same number of columns");
    for (const v of row) if (!Number.isFinite(v)) throw new Error("hungarian: costs must be finite numbers");
  }
  if (rows > cols) {
    const byColumn = hungarian(Array.from({ length: cols }, (_, c) => cost.map((row) => row[c]!)));
    const out = new Array<number>(rows).fill(-1);
    byColumn.forEach((row, c) => {
      if (row >= 0) out[row] = c;
    });
    return out;
  }
  // rows <= cols; 1-based arrays, column 0 is the sentinel (e-maxx formulation).
  const n = rows;
  const m = cols;
  const u = new Float64Array(n + 1);
  const v = new Float64Array(m + 1);
  const p = new Int32Array(m + 1); // p[j]: row matched to column j (0: none)
  const way = new Int32Array(m + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(m + 1).fill(Infinity);
    const used = new Uint8Array(m + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const reduced = cost[i0 - 1]![j - 1]! - u[i0]! - v[j]!;
        if (reduced < minv[j]!) {
          minv[j] = reduced;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          u[p[j]!]! += delta;
          v[j]! -= delta;
        } else {
          minv[j]! -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const out = new Array<number>(n).fill(-1);
  for (let j = 1; j <= m; j++) if (p[j]! > 0) out[p[j]! - 1] = j - 1;
  return out;
}

/** The one-to-one assignment of rows to columns with the largest total weight (Hungarian). */
export function maximumWeightAssignment(weight: number[][]): number[] {
  let top = 0;
  for (const row of weight) for (const w of row) top = Math.max(top, w);
  return hungarian(weight.map((row) => row.map((w) => top - w)));
}

// ---------------------------------------------------------------------------------------------
// Speaker turns

export interface Turn {
  speaker: string;
  /** Seconds from the start of the recording. */
  start: number;
  /** Seconds from the start of the recording. */
  end: number;
}

export interface SpeakerOptions {
  /** Turn boundaries are rounded to multiples of this many seconds before measuring; 0: exact. Default 0.01. */
  gridSeconds?: number;
}

export interface DerOptions extends SpeakerOptions {
  /**
   * Seconds NOT scored on EACH side of every reference boundary (md-eval's `-c`), after merging
   * each reference speaker's own turns. Default 0. pyannote.metrics' `collar` is the total width:
   * its collar=0.5 is this collar=0.25.
   */
  collar?: number;
  /** Leave out of scoring the time where two or more reference speakers talk at once. Default false. */
  skipOverlap?: boolean;
}

interface Piece {
  /** Length in grid ticks (or seconds when the grid is 0). */
  length: number;
  refs: number[];
  hyps: number[];
}

interface Scored {
  pieces: Piece[];
  refNames: string[];
  hypNames: string[];
  /** For each hypothesis label, the reference speaker it is mapped to (index) or -1. */
  hypToRef: number[];
  /** Converts a sum of piece lengths to seconds. */
  seconds: (ticks: number) => number;
}

function checkTurns(turns: readonly Turn[], what: string): void {
  turns.forEach((t, i) => {
    if (!Number.isFinite(t.start) || !Number.isFinite(t.end)) throw new Error(`${what}[${i}]: start and end must be finite numbers`);
  });
}

/**
 * The elementary pieces between all boundaries (reference, hypothesis, no-score zones) that are
 * scored, with the reference and hypothesis speakers active in each, and the best mapping.
 */
function score(reference: readonly Turn[], hypothesis: readonly Turn[], options: DerOptions): Scored {
  checkTurns(reference, "reference");
  checkTurns(hypothesis, "hypothesis");
  const grid = options.gridSeconds ?? 0.01;
  if (!(grid >= 0)) throw new Error("gridSeconds must be >= 0");
  const collar = options.collar ?? 0;
  if (!(collar >= 0)) throw new Error("collar must be >= 0");
  const tick = (t: number) => (grid > 0 ? Math.round(t / grid) : t);
  const seconds = (ticks: number) => (grid > 0 ? Number((ticks * grid).toFixed(6)) : ticks);

  const refNames: string[] = [];
  const hypNames: string[] = [];
  const indexOf = (names: string[], map: Map<string, number>, name: string) => {
    let i = map.get(name);
    if (i === undefined) {
      map.set(name, (i = names.length));
      names.push(name);
    }
    return i;
  };
  const refIndex = new Map<string, number>();
  const hypIndex = new Map<string, number>();

  // Events: kind 0 reference, 1 hypothesis, 2 no-score zone.
  const events: { t: number; kind: 0 | 1 | 2; id: number; delta: 1 | -1 }[] = [];
  const add = (kind: 0 | 1 | 2, id: number, start: number, end: number) => {
    if (end <= start) return;
    events.push({ t: start, kind, id, delta: 1 }, { t: end, kind, id, delta: -1 });
  };
  const refIntervals = new Map<number, [number, number][]>();
  for (const turn of reference) {
    const id = indexOf(refNames, refIndex, String(turn.speaker));
    const start = tick(turn.start);
    const end = tick(turn.end);
    if (end <= start) continue;
    add(0, id, start, end);
    let list = refIntervals.get(id);
    if (!list) refIntervals.set(id, (list = []));
    list.push([start, end]);
  }
  for (const turn of hypothesis) add(1, indexOf(hypNames, hypIndex, String(turn.speaker)), tick(turn.start), tick(turn.end));
  if (collar > 0) {
    const c = grid > 0 ? Math.round(collar / grid) : collar;
    for (const list of refIntervals.values()) {
      for (const [start, end] of mergeIntervals(list)) {
        add(2, 0, start - c, start + c);
        add(2, 0, end - c, end + c);
      }
    }
  }
  events.sort((a, b) => a.t - b.t);

  const refCount = new Int32Array(refNames.length);
  const hypCount = new Int32Array(hypNames.length);
  let noScore = 0;
  const pieces: Piece[] = [];
  let previous: number | null = null;
  for (let e = 0; e < events.length; ) {
    const t = events[e]!.t;
    if (previous !== null && t > previous && noScore === 0) {
      const refs: number[] = [];
      const hyps: number[] = [];
      for (let r = 0; r < refCount.length; r++) if (refCount[r]! > 0) refs.push(r);
      for (let h = 0; h < hypCount.length; h++) if (hypCount[h]! > 0) hyps.push(h);
      if ((refs.length || hyps.length) && !(options.skipOverlap && refs.length > 1)) pieces.push({ length: t - previous, refs, hyps });
    }
    for (; e < events.length && events[e]!.t === t; e++) {
      const { kind, id, delta } = events[e]!;
      if (kind === 0) refCount[id]! += delta;
      else if (kind === 1) hypCount[id]! += delta;
      else noScore += delta;
    }
    previous = t;
  }

  // Time each (reference, hypothesis) pair talks together; the mapping maximises the total.
  const together = refNames.map(() => new Array<number>(hypNames.length).fill(0));
  for (const piece of pieces) for (const r of piece.refs) for (const h of piece.hyps) together[r]![h]! += piece.length;
  const hypToRef = new Array<number>(hypNames.length).fill(-1);
  maximumWeightAssignment(together).forEach((h, r) => {
    if (h >= 0 && together[r]![h]! > 0) hypToRef[h] = r;
  });
  return { pieces, refNames, hypNames, hypToRef, seconds };
}

/** Overlapping or touching intervals joined, in order. */
export function mergeIntervals(intervals: [number, number][]): [number, number][] {
  const sorted = intervals.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

interface Tally {
  total: number;
  correct: number;
  covered: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
}

function tally(scored: Scored): Tally {
  const sum: Tally = { total: 0, correct: 0, covered: 0, missed: 0, falseAlarm: 0, confusion: 0 };
  for (const { length, refs, hyps } of scored.pieces) {
    let correct = 0; // the mapping is one-to-one, so each reference speaker is counted at most once
    for (const h of hyps) if (refs.includes(scored.hypToRef[h]!)) correct++;
    sum.total += refs.length * length;
    sum.correct += correct * length;
    if (hyps.length) sum.covered += refs.length * length;
    sum.missed += Math.max(0, refs.length - hyps.length) * length;
    sum.falseAlarm += Math.max(0, hyps.length - refs.length) * length;
    sum.confusion += (Math.min(refs.length, hyps.length) - correct) * length;
  }
  return sum;
}

function mappingOf(scored: Scored): Record<string, string | null> {
  const mapping: Record<string, string | null> = {};
  scored.hypNames.forEach((name, h) => (mapping[name] = scored.hypToRef[h]! >= 0 ? scored.refNames[scored.hypToRef[h]!]! : null));
  return mapping;
}

export interface AttributionResult {
  /** Share of reference speech time (speaker time) during which some hypothesis speaker talks. NaN without reference speech. */
  coverage: number;
  /** Share of reference speech time (speaker time) attributed to the right speaker under the best mapping. NaN without reference speech. */
  accuracy: number;
  /** Hypothesis label → reference speaker (null: not mapped, e.g. an extra speaker). */
  mapping: Record<string, string | null>;
  /** Reference speech, in speaker-seconds (overlapping speakers each count). */
  referenceSeconds: number;
  coveredSeconds: number;
  correctSeconds: number;
  referenceSpeakers: number;
  hypothesisSpeakers: number;
}

/**
 * How well hypothesis segments (a transcript's, say) are attributed to speakers: the labels are
 * mapped one-to-one onto the reference speakers (Hungarian, maximising the time they share), then
 * accuracy is the share of reference speech time whose reference speaker's mapped label is active,
 * and coverage the share during which any hypothesis speaker is active. Both are measured in
 * speaker time: where two reference speakers overlap, each counts, so one hypothesis speaker
 * there gets at most half right. Hypothesis time outside reference speech does not count here
 * (it is DER's false alarm).
 */
export function speakerAttribution(referenceTurns: readonly Turn[], hypothesisSegments: readonly Turn[], options: SpeakerOptions = {}): AttributionResult {
  const scored = score(referenceTurns, hypothesisSegments, { gridSeconds: options.gridSeconds });
  const t = tally(scored);
  return {
    coverage: t.total > 0 ? t.covered / t.total : NaN,
    accuracy: t.total > 0 ? t.correct / t.total : NaN,
    mapping: mappingOf(scored),
    referenceSeconds: scored.seconds(t.total),
    coveredSeconds: scored.seconds(t.covered),
    correctSeconds: scored.seconds(t.correct),
    referenceSpeakers: scored.refNames.length,
    hypothesisSpeakers: scored.hypNames.length,
  };
}

export interface DerResult {
  /** (missed + falseAlarm + confusion) / total; 0 when there is nothing to find and nothing found, 1 when only false alarms. */
  der: number;
  /** Reference speaker time with too few hypothesis speakers, in seconds. */
  missed: number;
  /** Hypothesis speaker time beyond the reference speakers, in seconds. */
  falseAlarm: number;
  /** Speaker time given to the wrong (or an unmapped) hypothesis speaker, in seconds. */
  confusion: number;
  /** Scored reference speaker time, in seconds (overlapping speakers each count). */
  total: number;
  /** Hypothesis label → reference speaker under the best one-to-one mapping. */
  mapping: Record<string, string | null>;
}

/**
 * NIST-style diarization error rate. Over each elementary piece of scored time with N_ref
 * reference speakers, N_hyp hypothesis speakers and N_correct mapped pairs both active:
 * missed = max(0, N_ref - N_hyp), false alarm = max(0, N_hyp - N_ref),
 * confusion = min(N_ref, N_hyp) - N_correct, each times the piece's length; the total is N_ref
 * times the length. The mapping maximises the time mapped pairs talk together over the scored
 * time. `collar` seconds each side of every reference boundary are not scored (default 0);
 * `skipOverlap` leaves out overlapped reference speech.
 */
export function diarizationErrorRate(referenceTurns: readonly Turn[], hypothesisTurns: readonly Turn[], options: DerOptions = {}): DerResult {
  const scored = score(referenceTurns, hypothesisTurns, options);
  const t = tally(scored);
  const errors = t.missed + t.falseAlarm + t.confusion;
  return {
    der: t.total > 0 ? errors / t.total : errors > 0 ? 1 : 0,
    missed: scored.seconds(t.missed),
    falseAlarm: scored.seconds(t.falseAlarm),
    confusion: scored.seconds(t.confusion),
    total: scored.seconds(t.total),
    mapping: mappingOf(scored),
  };
}

// ---------------------------------------------------------------------------------------------
// Reference formats

export interface RttmTurn extends Turn {
  /** The RTTM's file id (second field). */
  file: string;
  channel: string;
}

/**
 * SPEAKER lines of an RTTM file: `SPEAKER <file> <channel> <start> <duration> <NA> <NA> <speaker> <NA> <NA>`.
 * Blank lines, `;;` comments and other record types (SPKR-INFO, ...) are skipped; a SPEAKER line
 * with missing or non-numeric fields throws with its line number.
 */
export function parseRttm(text: string): RttmTurn[] {
  const turns: RttmTurn[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith(";;")) return;
    const f = line.split(/\s+/);
    if (f[0] !== "SPEAKER") return;
    const start = Number(f[3]);
    const duration = Number(f[4]);
    const speaker = f[7];
    if (f.length < 8 || !Number.isFinite(start) || !Number.isFinite(duration) || duration < 0 || !speaker) {
      throw new Error(`RTTM line ${i + 1}: expected "SPEAKER <file> <channel> <start> <duration> <NA> <NA> <speaker> ...", got ${JSON.stringify(raw)}`);
    }
    turns.push({ file: f[1]!, channel: f[2]!, speaker, start, end: Number((start + duration).toFixed(6)) });
  });
  return turns;
}

export interface TextTurn extends Turn {
  text?: string;
}

export interface Reference {
  language: string | null;
  durationSeconds: number | null;
  /** Speakers in order of first appearance (or the document's `speakers` list when it has one). */
  speakers: string[];
  turns: TextTurn[];
  /** The turns' texts joined in time order; null when no turn has a text. */
  text: string | null;
}

/**
 * A reference in JSON: `{language?, duration_seconds?, speakers?, turns: [{speaker, start, end, text?}]}`
 * (the fixtures' shape), or the service's own transcript JSON, with `segments` instead of `turns`
 * (a corrected transcript export is a valid reference). Accepts the JSON text or the parsed value.
 */
export function parseReferenceJson(json: string | unknown): Reference {
  const doc = (typeof json === "string" ? JSON.parse(json) : json) as Record<string, unknown> | null;
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new Error("reference: expected a JSON object");
  const list = doc.turns ?? doc.segments;
  const field = doc.turns !== undefined ? "turns" : "segments";
  if (!Array.isArray(list)) throw new Error("reference: expected a `turns` (or `segments`) array");
  const turns: TextTurn[] = list.map((item: unknown, i: number) => {
    const t = item as Record<string, unknown> | null;
    if (!t || typeof t !== "object") throw new Error(`reference: ${field}[${i}] is not an object`);
    const { speaker, start, end, text } = t;
    if (typeof speaker !== "string" && typeof speaker !== "number") throw new Error(`reference: ${field}[${i}].speaker must be a string`);
    if (typeof start !== "number" || typeof end !== "number" || !Number.isFinite(start) || !Number.isFinite(end) || end < start) {
      throw new Error(`reference: ${field}[${i}] needs numeric start <= end`);
    }
    if (text !== undefined && text !== null && typeof text !== "string") throw new Error(`reference: ${field}[${i}].text must be a string`);
    return typeof text === "string" ? { speaker: String(speaker), start, end, text } : { speaker: String(speaker), start, end };
  });
  const ordered = turns.map((t, i) => ({ t, i })).sort((a, b) => a.t.start - b.t.start || a.i - b.i).map((x) => x.t);
  const withText = ordered.filter((t) => t.text !== undefined);
  const listed = Array.isArray(doc.speakers) && doc.speakers.every((s) => typeof s === "string") ? (doc.speakers as string[]) : null;
  return {
    language: typeof doc.language === "string" ? doc.language : null,
    durationSeconds: typeof doc.duration_seconds === "number" ? doc.duration_seconds : null,
    speakers: listed ?? [...new Set(ordered.map((t) => t.speaker))],
    turns: ordered,
    text: withText.length ? withText.map((t) => t.text!.trim()).filter(Boolean).join(" ") : null,
  };
}
