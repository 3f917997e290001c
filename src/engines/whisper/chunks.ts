/**
 * Speech regions from the VAD are packed into chunks of at most one whisper window (30 s):
 * only speech is sent to whisper, and every timestamp whisper reports on a chunk is mapped back
 * to the recording through the chunk's pieces.
 */

export interface Region {
  start: number;
  end: number;
}

/** A stretch of the recording placed in a chunk at `at` (seconds from the chunk's start). */
export interface Piece {
  at: number;
  start: number;
  end: number;
}

export interface Chunk {
  pieces: Piece[];
  /** Length of the chunk's audio in seconds, gaps included. */
  duration: number;
}

export interface PackOptions {
  /** Padding added around each VAD region, seconds. */
  padSeconds: number;
  /** Regions closer than this (after padding) are joined with the real audio between them. */
  joinGapSeconds: number;
  /** Silence put between two pieces of a chunk, so whisper hears a pause there. */
  separatorSeconds: number;
  /** Longest chunk; whisper's window is 30 s. */
  maxChunkSeconds: number;
}

export const DEFAULT_PACK: Readonly<PackOptions> = Object.freeze({
  padSeconds: 0.2,
  joinGapSeconds: 0.5,
  separatorSeconds: 0.3,
  maxChunkSeconds: 30,
});

/** Pads, clamps, sorts and joins regions; drops empty ones. */
export function normaliseRegions(regions: Region[], durationSeconds: number, padSeconds: number, joinGapSeconds: number): Region[] {
  const padded = regions
    .map((r) => ({ start: Math.max(0, r.start - padSeconds), end: Math.min(durationSeconds, r.end + padSeconds) }))
    .filter((r) => Number.isFinite(r.start) && Number.isFinite(r.end) && r.end > r.start)
    .sort((a, b) => a.start - b.start);
  const joined: Region[] = [];
  for (const region of padded) {
    const last = joined.at(-1);
    if (last && region.start - last.end <= joinGapSeconds) last.end = Math.max(last.end, region.end);
    else joined.push({ ...region });
  }
  return joined;
}

/** Packs regions (sorted, disjoint) into chunks; a region longer than a chunk is split. */
export function packRegions(regions: Region[], options: Pick<PackOptions, "separatorSeconds" | "maxChunkSeconds">): Chunk[] {
  const { separatorSeconds, maxChunkSeconds } = options;
  const parts: Region[] = [];
  for (const region of regions) {
    const count = Math.ceil((region.end - region.start) / maxChunkSeconds);
    const step = (region.end - region.start) / count;
    for (let i = 0; i < count; i++) parts.push({ start: region.start + i * step, end: i === count - 1 ? region.end : region.start + (i + 1) * step });
  }
  const chunks: Chunk[] = [];
  let current: Chunk | null = null;
  for (const part of parts) {
    const length = part.end - part.start;
    if (current && current.duration + separatorSeconds + length <= maxChunkSeconds + 1e-9) {
      const at = current.duration + separatorSeconds;
      current.pieces.push({ at, start: part.start, end: part.end });
      current.duration = at + length;
    } else {
      current = { pieces: [{ at: 0, start: part.start, end: part.end }], duration: length };
      chunks.push(current);
    }
  }
  return chunks;
}

/**
 * Maps a time on the chunk to the recording. A time in a separator (or past the chunk's end)
 * belongs to no speech: as a start it moves to the next piece's start, as an end to the
 * previous piece's end, so a segment lying wholly in a gap maps to an empty span and is dropped.
 */
export function mapToRecording(chunk: Chunk, t: number, edge: "start" | "end"): number {
  const pieces = chunk.pieces;
  const first = pieces[0]!;
  if (t <= first.at) return first.start;
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const pieceEnd = piece.at + (piece.end - piece.start);
    if (t < piece.at) return edge === "start" ? piece.start : pieces[i - 1]!.end;
    if (t <= pieceEnd) return piece.start + (t - piece.at);
  }
  const last = pieces.at(-1)!;
  return last.end;
}

/** Sample range [from, to) of a piece in a recording at `sampleRate`. */
export function sampleRange(piece: Piece, sampleRate: number, totalSamples: number): [number, number] {
  const from = Math.max(0, Math.min(totalSamples, Math.round(piece.start * sampleRate)));
  const to = Math.max(from, Math.min(totalSamples, Math.round(piece.end * sampleRate)));
  return [from, to];
}

/** The chunk's audio: its pieces' samples with silence in the separators. */
export function chunkAudio(chunk: Chunk, samples: Int16Array, sampleRate: number): Int16Array {
  const ranges = chunk.pieces.map((piece) => ({ piece, range: sampleRange(piece, sampleRate, samples.length) }));
  const length = Math.max(...ranges.map(({ piece, range }) => Math.round(piece.at * sampleRate) + (range[1] - range[0])));
  const out = new Int16Array(length); // zero-filled: the separators are silence
  for (const { piece, range } of ranges) out.set(samples.subarray(range[0], range[1]), Math.round(piece.at * sampleRate));
  return out;
}
