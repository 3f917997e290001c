/**
 * Frame-level scoring of a diarization against reference turns, for tests and measurements.
 *
 * A 10 ms grid is laid over the reference speech (frames where at least one reference speaker
 * talks). Hypothesis clusters are mapped one-to-one onto reference speakers, choosing the mapping
 * that maximises the frames where a cluster and its reference speaker are active together.
 * - coverage: share of reference speech frames where any hypothesis speaker is active;
 * - correct: share of reference speech frames where a hypothesis speaker active there is mapped
 *   to a reference speaker active there.
 */

export interface ScoredTurn {
  start: number;
  end: number;
  speaker: string | number;
}

export interface DiarizationScore {
  /** Reference speech time on the grid, in seconds. */
  referenceSeconds: number;
  coverage: number;
  correct: number;
  /** Distinct hypothesis speakers. */
  speakersFound: number;
  /** Hypothesis speaker → reference speaker under the best one-to-one mapping. */
  mapping: Map<string, string>;
}

/** For each grid frame, the set of speakers active there (as indices into `names`). */
function rasterise(turns: ScoredTurn[], frames: number, step: number): { names: string[]; active: number[][] } {
  const names: string[] = [];
  const index = new Map<string, number>();
  const active: number[][] = Array.from({ length: frames }, () => []);
  for (const turn of turns) {
    const name = String(turn.speaker);
    let id = index.get(name);
    if (id === undefined) {
      id = names.length;
      names.push(name);
      index.set(name, id);
    }
    // Frame i covers [i*step, (i+1)*step); it is active when its centre lies in the turn.
    const first = Math.max(0, Math.ceil(turn.start / step - 0.5));
    const last = Math.min(frames - 1, Math.ceil(turn.end / step - 0.5) - 1);
    for (let i = first; i <= last; i++) if (!active[i]!.includes(id)) active[i]!.push(id);
  }
  return { names, active };
}

/**
 * The one-to-one assignment (reference → hypothesis or none) with the largest total weight,
 * by exhaustive search: fine for the handful of speakers a meeting has.
 */
function bestAssignment(weight: number[][], hypCount: number): number[] {
  const refCount = weight.length;
  let best = -1;
  let bestChoice: number[] = new Array(refCount).fill(-1);
  const choice: number[] = new Array(refCount).fill(-1);
  const used = new Array(hypCount).fill(false);
  const visit = (r: number, total: number) => {
    if (r === refCount) {
      if (total > best) [best, bestChoice] = [total, [...choice]];
      return;
    }
    choice[r] = -1;
    visit(r + 1, total);
    for (let h = 0; h < hypCount; h++) {
      if (used[h] || weight[r]![h]! === 0) continue;
      used[h] = true;
      choice[r] = h;
      visit(r + 1, total + weight[r]![h]!);
      used[h] = false;
      choice[r] = -1;
    }
  };
  visit(0, 0);
  return bestChoice;
}

export function scoreDiarization(reference: ScoredTurn[], hypothesis: ScoredTurn[], step = 0.01): DiarizationScore {
  const end = Math.max(0, ...reference.map((t) => t.end), ...hypothesis.map((t) => t.end));
  const frames = Math.ceil(end / step) + 1;
  const ref = rasterise(reference, frames, step);
  const hyp = rasterise(hypothesis, frames, step);

  const weight = ref.names.map(() => new Array<number>(hyp.names.length).fill(0));
  let speech = 0;
  let covered = 0;
  for (let i = 0; i < frames; i++) {
    const r = ref.active[i]!;
    if (!r.length) continue;
    speech++;
    const h = hyp.active[i]!;
    if (h.length) covered++;
    for (const a of r) for (const b of h) weight[a]![b]!++;
  }

  const assignment = bestAssignment(weight, hyp.names.length);
  const refOf = new Array<number>(hyp.names.length).fill(-1);
  assignment.forEach((h, r) => h >= 0 && (refOf[h] = r));

  let correct = 0;
  for (let i = 0; i < frames; i++) {
    const r = ref.active[i]!;
    if (r.length && hyp.active[i]!.some((h) => r.includes(refOf[h]!))) correct++;
  }

  const mapping = new Map<string, string>();
  refOf.forEach((r, h) => r >= 0 && mapping.set(hyp.names[h]!, ref.names[r]!));
  return {
    referenceSeconds: speech * step,
    coverage: speech ? covered / speech : 0,
    correct: speech ? correct / speech : 0,
    speakersFound: hyp.names.length,
    mapping,
  };
}

/** Reference turns from an RTTM file (`SPEAKER <file> <chan> <start> <duration> ... <name> ...`). */
export function parseRttm(text: string): ScoredTurn[] {
  const turns: ScoredTurn[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== "SPEAKER" || f.length < 8) continue;
    const start = Number(f[3]);
    const duration = Number(f[4]);
    if (Number.isFinite(start) && Number.isFinite(duration)) turns.push({ start, end: start + duration, speaker: f[7]! });
  }
  return turns;
}
