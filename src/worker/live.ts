import { open } from "node:fs/promises";
import { decodeTail } from "../engines/ffmpeg.ts";
import type { Engines, StepContext } from "../engines/types.ts";
import { localDiskStorage } from "../storage/local-disk.ts";
import { draftPartName, LIVE_TRANSCRIPT, liveTailName } from "../storage/paths.ts";
import type { TimedWord } from "../transcripts/types.ts";
import type { WorkerConfig } from "./config.ts";
import type { LiveSegment, LiveStepInput, LiveTranscriptFile, StepResult } from "./protocol.ts";

/**
 * The live transcript of a recording still being made (issue 25, item 8). Each step hears the
 * newest window of the draft's parts: from a little before the last word it kept (OVERLAP_SECONDS)
 * to the end of what arrived, at most MAX_WINDOW_SECONDS (a step that fell behind skips to the
 * newest audio instead of catching up). Words the previous window already kept are dropped, by
 * time and by text; the last HOLD_BACK_SECONDS of a window (a word cut by the part's end) wait
 * for the next one.
 */
export const LIVE_WINDOW = { OVERLAP_SECONDS: 1.5, MAX_WINDOW_SECONDS: 12, HOLD_BACK_SECONDS: 0.6, MAX_WORD_SECONDS: 3 } as const;

export function emptyLiveTranscript(): LiveTranscriptFile {
  return { heardBytes: 0, heardUntil: 0, committedEnd: 0, skippedSeconds: 0, segments: [] };
}

/** Where the next window starts: a little before what is not yet kept. */
export function windowStart(state: LiveTranscriptFile, window = LIVE_WINDOW): number {
  // What was heard before the held-back tail and kept nothing is not heard again (silence).
  return Math.max(0, Math.max(state.committedEnd, state.heardUntil - window.HOLD_BACK_SECONDS) - window.OVERLAP_SECONDS);
}

/**
 * The window to transcribe once the audio is known to reach `end` from `start`: at most
 * MAX_WINDOW_SECONDS, its newest end kept; `skipped` is what is left out before it.
 */
export function clampWindow(start: number, end: number, window = LIVE_WINDOW): { start: number; skipped: number } {
  if (end - start <= window.MAX_WINDOW_SECONDS) return { start, skipped: 0 };
  const from = end - window.MAX_WINDOW_SECONDS;
  return { start: from, skipped: from - start };
}

const normal = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, "");

/** How many of `words`' first words repeat the last words of `before` (at most 8). */
function repeatedPrefix(before: string, words: readonly TimedWord[]): number {
  const tail = before.split(/\s+/).map(normal).filter(Boolean);
  const head = words.map((w) => normal(w.text));
  for (let n = Math.min(8, tail.length, head.length); n > 0; n--) {
    if (head.slice(0, n).every((word, i) => word !== "" && word === tail[tail.length - n + i])) return n;
  }
  return 0;
}

/**
 * Adds a window's words (times from the recording's start) to the provisional transcript: only
 * words that start after the last word kept and end before the window's held-back tail, without
 * the words that repeat the previous text. Answers the new state (the input is not changed).
 */
export function mergeWindow(
  state: LiveTranscriptFile,
  words: readonly TimedWord[],
  window: { start: number; end: number; skipped: number; heardBytes: number },
  settings = LIVE_WINDOW,
): LiveTranscriptFile {
  const keepUntil = window.end - settings.HOLD_BACK_SECONDS;
  // A "word" of several seconds running into the tail is whisper's timing stretched to the end of
  // its audio (a model without usable word timings), not a word cut by the part's end: kept, ended at the edge.
  const stretched = (w: TimedWord) => w.end > keepUntil && w.start < keepUntil && w.end - w.start > settings.MAX_WORD_SECONDS;
  let fresh = words
    .filter((w) => w.text.trim() !== "" && w.start >= state.committedEnd - 0.05 && (w.end <= keepUntil || stretched(w)))
    .map((w) => (w.end > keepUntil ? { ...w, end: keepUntil } : w));
  fresh = fresh.slice(repeatedPrefix(state.segments.at(-1)?.text ?? "", fresh));
  const segments = [...state.segments];
  let committedEnd = state.committedEnd;
  if (fresh.length) {
    const text = fresh.map((w) => w.text).join("").replace(/\s+/g, " ").trim();
    segments.push({ start: round(fresh[0]!.start), end: round(fresh.at(-1)!.end), text });
    committedEnd = fresh.at(-1)!.end;
  }
  return {
    heardBytes: window.heardBytes,
    heardUntil: window.end,
    committedEnd,
    skippedSeconds: round(state.skippedSeconds + window.skipped),
    segments,
  };
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** The words of a window's segments (a segment without word timings is one word), moved by `offset`. */
export function wordsOf(segments: readonly { start: number; end: number; text: string; words?: TimedWord[] }[], offset: number): TimedWord[] {
  return segments.flatMap((s) => (s.words?.length ? s.words : [{ start: s.start, end: s.end, text: s.text }]).map((w) => ({ start: w.start + offset, end: w.end + offset, text: w.text })));
}

/** Runs one live step: the newest window of the draft's parts, merged into its provisional transcript. */
export async function runLiveStep(input: LiveStepInput, engines: Engines, config: WorkerConfig, context: StepContext): Promise<StepResult> {
  const storage = localDiskStorage(input.storageDir);
  const stored = await storage.get(input.meetingId, LIVE_TRANSCRIPT);
  const state: LiveTranscriptFile = stored ? (JSON.parse(new TextDecoder().decode(stored)) as LiveTranscriptFile) : emptyLiveTranscript();
  const result = (s: LiveTranscriptFile): StepResult => ({ step: "live", heardBytes: s.heardBytes, segments: s.segments.length, skippedSeconds: s.skippedSeconds });
  const log = (line: string) => console.error(JSON.stringify({ time: new Date().toISOString(), level: "warn", job_id: input.jobId, step: input.step, message: line }));
  // A part after the first has no header: the parts are joined from the first (a copy, dropped after).
  const joined = await storage.stage(input.meetingId, "live.webm", input.runId);
  const tail = await storage.stage(input.meetingId, "live.wav", input.runId);
  try {
    let heardBytes = 0;
    const out = await open(joined.path, "w", 0o600);
    try {
      for (let i = 0; i <= input.parts; i++) {
        // After the parts, the one still gathering, when the page sent it.
        const part = await storage.get(input.meetingId, i < input.parts ? draftPartName(i) : liveTailName(i));
        if (!part) {
          if (i < input.parts) throw new Error(`part ${i} of the draft is missing`);
          break;
        }
        await out.write(part);
        heardBytes += part.length;
      }
    } finally {
      await out.close();
    }
    // Nothing new since the last step (or the draft was finished: no part is given).
    if (heardBytes === 0 || heardBytes <= state.heardBytes) return result(state);
    let start = windowStart(state);
    let seconds = await decodeTail(config.ffmpegPath, joined.path, tail.path, start, context, log);
    const clamped = clampWindow(start, start + seconds);
    if (clamped.skipped > 0) {
      start = clamped.start;
      seconds = await decodeTail(config.ffmpegPath, joined.path, tail.path, start, context, log);
    }
    const end = start + seconds;
    const words =
      seconds < 0.5 ? [] : wordsOf((await engines.transcriber.transcribe({ wavPath: tail.path, language: input.language, prompt: input.prompt }, context)).segments, start);
    const next = mergeWindow(state, words, { start, end, skipped: clamped.skipped, heardBytes });
    await storage.put(input.meetingId, LIVE_TRANSCRIPT, JSON.stringify(next), input.runId);
    context.progress(1);
    return result(next);
  } finally {
    await joined.discard();
    await tail.discard();
  }
}
