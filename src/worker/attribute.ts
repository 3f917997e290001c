import type { SpeakerTurn } from "../engines/types.ts";
import type { LabelledSegment, LabelledTurn, SpeechSegment } from "../transcripts/types.ts";

export function speakerLabel(index: number): string {
  return `SPEAKER_${String(index).padStart(2, "0")}`;
}

function overlap(aStart: number, aEnd: number, bStart: number, bEnd: number): number {
  return Math.max(0, Math.min(aEnd, bEnd) - Math.max(aStart, bStart));
}

/** The speaker who talks most within [start, end]; the nearest turn's speaker if none overlaps. */
function dominantSpeaker(start: number, end: number, turns: SpeakerTurn[]): number | null {
  const talk = new Map<number, number>();
  for (const turn of turns) {
    const o = overlap(start, end, turn.start, turn.end);
    if (o > 0) talk.set(turn.speaker, (talk.get(turn.speaker) ?? 0) + o);
  }
  if (talk.size) return [...talk.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
  let nearest: SpeakerTurn | undefined;
  let distance = Infinity;
  const middle = (start + end) / 2;
  for (const turn of turns) {
    const d = middle < turn.start ? turn.start - middle : middle > turn.end ? middle - turn.end : 0;
    if (d < distance) [nearest, distance] = [turn, d];
  }
  return nearest?.speaker ?? null;
}

/**
 * Labels transcript segments with diarization speakers. Each segment takes the speaker who talks
 * most in it; a segment with word timings that spans a speaker change is split at the word where
 * the speaker changes. Labels are SPEAKER_00, SPEAKER_01, ... in order of first appearance.
 * Times are clamped to the recording and ordered; empty segments are dropped.
 */
export function attributeSpeakers(
  segments: SpeechSegment[],
  turns: SpeakerTurn[],
  durationSeconds: number,
): { speakers: string[]; segments: LabelledSegment[]; turns: LabelledTurn[] } {
  const clamp = (t: number) => Math.min(durationSeconds, Math.max(0, Number.isFinite(t) ? t : 0));
  const ordered = segments
    .map((s) => ({ ...s, start: clamp(s.start), end: clamp(s.end), text: s.text.trim() }))
    .filter((s) => s.text && s.end > s.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);

  const pieces: { start: number; end: number; cluster: number | null; text: string }[] = [];
  for (const segment of ordered) {
    const words = (segment.words ?? [])
      .map((w) => ({ ...w, start: clamp(w.start), end: clamp(w.end) }))
      .filter((w) => w.text.trim());
    const speakers = new Set(turns.filter((t) => overlap(segment.start, segment.end, t.start, t.end) > 0).map((t) => t.speaker));
    if (words.length < 2 || speakers.size < 2) {
      pieces.push({ start: segment.start, end: segment.end, cluster: dominantSpeaker(segment.start, segment.end, turns), text: segment.text });
      continue;
    }
    let current: (typeof pieces)[number] | undefined;
    for (const word of words) {
      const cluster = dominantSpeaker(word.start, Math.max(word.end, word.start + 0.01), turns);
      if (current && current.cluster === cluster) {
        current.end = word.end;
        current.text += word.text;
      } else {
        if (current) pieces.push(current);
        current = { start: word.start, end: word.end, cluster, text: word.text };
      }
    }
    if (current) pieces.push(current);
  }

  const labels = new Map<number, string>();
  const firstSeen = [...turns].sort((a, b) => a.start - b.start);
  for (const turn of firstSeen) if (!labels.has(turn.speaker)) labels.set(turn.speaker, speakerLabel(labels.size));
  const labelled = pieces
    .map((p) => ({
      start: round(p.start),
      end: round(Math.max(p.end, p.start)),
      speaker: p.cluster === null ? speakerLabel(0) : labels.get(p.cluster)!,
      text: p.text.trim(),
    }))
    .filter((p) => p.text);
  const labelledTurns: LabelledTurn[] = [];
  for (const turn of firstSeen) {
    const start = round(clamp(turn.start));
    const end = round(clamp(turn.end));
    if (end <= start) continue;
    const speaker = labels.get(turn.speaker)!;
    const last = labelledTurns.at(-1);
    // Back-to-back turns of one speaker are one turn; overlapping speech keeps both speakers.
    if (last && last.speaker === speaker && start <= last.end) last.end = Math.max(last.end, end);
    else labelledTurns.push({ start, end, speaker });
  }
  // A speaker the diarizer heard counts even when no transcript segment ended up with their label.
  const speakers = [...new Set([...labelled.map((s) => s.speaker), ...labelledTurns.map((t) => t.speaker)])].sort();
  return { speakers, segments: labelled, turns: labelledTurns };
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
