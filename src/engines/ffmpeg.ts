import { renameSync, rmSync, statSync } from "node:fs";
import { childEnvironment } from "../lib/child-env.ts";
import { readLines } from "../lib/lines.ts";
import { restrictedInputArgs } from "./media-containers.ts";
import { lastLines, NOT_A_RECORDING, probeMedia } from "./media-probe.ts";
import { EngineError, type DecodedAudio, type StepContext } from "./types.ts";

const WAV_HEADER_BYTES = 44;
const BYTES_PER_SECOND = 16_000 * 2; // 16 kHz, mono, 16-bit

export interface DecodeOptions {
  /** Longest recording accepted; longer fails with recording_too_long. */
  maxDurationSeconds: number;
  /** Raw ffmpeg output, for the server log only (it can name server paths). */
  log?(line: string): void;
  /**
   * Called before decoding with the most bytes the WAV can take (the probed duration, or the
   * limit when the container does not say); throws when the disk cannot hold them.
   */
  ensureSpace?(bytes: number): void;
}

/**
 * Decodes a recording to 16 kHz mono 16-bit WAV, streaming: ffmpeg reads and writes files
 * itself, nothing passes through this process but its progress.
 *
 * The container is found by probing under the allowlists (media-containers.ts) and passed
 * back to ffmpeg with -f, so the decode opens exactly what the probe accepted. The announced
 * duration is checked against the limit first; since a header can lie, decoding also stops one
 * second past the limit (-t), and output that reaches past the limit fails the same way.
 */
export async function decodeToWav(
  ffmpegPath: string,
  inputPath: string,
  outputPath: string,
  context: StepContext,
  options: DecodeOptions,
): Promise<DecodedAudio> {
  const log = options.log ?? (() => {});
  if (context.signal.aborted) throw canceled();
  const probe = await probeMedia(ffmpegPath, inputPath, log);
  if (probe.durationSeconds !== null && probe.durationSeconds > options.maxDurationSeconds) throw tooLong(options.maxDurationSeconds);
  const totalSeconds = probe.durationSeconds;
  // -t stops decoding one second past the limit, whatever the header says.
  const boundSeconds = Math.min(totalSeconds ?? Infinity, options.maxDurationSeconds + 1);
  options.ensureSpace?.(WAV_HEADER_BYTES + Math.ceil(boundSeconds * BYTES_PER_SECOND));
  const partial = `${outputPath}.part`;
  const proc = Bun.spawn(
    [
      ffmpegPath, "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
      ...restrictedInputArgs(), "-f", probe.demuxer, "-i", inputPath,
      "-t", String(options.maxDurationSeconds + 1),
      "-vn", "-map", "0:a:0", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le",
      "-fflags", "+bitexact", "-flags:a", "+bitexact", "-f", "wav", "-progress", "pipe:1", "-nostats", partial,
    ],
    // Only the allowlisted variables: not the worker's configuration, nor what --worker-env passes it.
    { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: childEnvironment(process.env) },
  );
  const abort = () => proc.kill("SIGKILL");
  context.signal.addEventListener("abort", abort, { once: true });
  if (context.signal.aborted) abort();
  try {
    const stderr = new Response(proc.stderr).text();
    for await (const raw of readLines(proc.stdout)) {
      const match = /^out_time_us=(\d+)/.exec(raw.trim());
      if (match && totalSeconds) context.progress(Math.min(1, Number(match[1]) / 1e6 / totalSeconds));
    }
    const code = await proc.exited;
    if (context.signal.aborted) throw canceled();
    if (code !== 0) {
      log(`ffmpeg exited with ${code}: ${lastLines((await stderr).slice(-64 * 1024))}`);
      throw new EngineError("unsupported_media", NOT_A_RECORDING, false);
    }
    const bytes = statSync(partial).size - WAV_HEADER_BYTES;
    if (bytes <= 0) throw new EngineError("no_audio", "The recording contains no audio samples.", false);
    const durationSeconds = bytes / BYTES_PER_SECOND;
    if (durationSeconds > options.maxDurationSeconds) throw tooLong(options.maxDurationSeconds);
    renameSync(partial, outputPath);
    context.progress(1);
    return { wavPath: outputPath, durationSeconds };
  } finally {
    context.signal.removeEventListener("abort", abort);
    rmSync(partial, { force: true });
  }
}

/**
 * Rewrites a recording made of WebM pieces joined end to end (the web app's recorder) as one
 * WebM with its duration and cues, streams copied, not re-encoded: the joined file decodes, but a
 * player cannot show its length or seek in it. The rewritten copy goes to `output` (the caller
 * commits it over the recording: storage/storage.ts's stage) and the answer is true; other
 * containers are left as they are, nothing is written and the answer is false.
 */
export async function remuxJoinedWebm(
  ffmpegPath: string,
  path: string,
  output: string,
  context: StepContext,
  log: (line: string) => void = () => {},
): Promise<boolean> {
  const probe = await probeMedia(ffmpegPath, path, log);
  if (!probe.demuxer.split(",").includes("matroska")) return false;
  await ffmpegToFile(ffmpegPath, ["-f", probe.demuxer, "-i", path, "-map", "0:a:0", "-c", "copy", "-f", "webm"], output, context, (line) => log(`ffmpeg remux ${line}`));
  return true;
}

/**
 * Decodes a recording from `startSeconds` to its end (16 kHz mono WAV at `output`): the newest
 * audio of a recording still being made, for its live transcript (worker/live.ts). The start is
 * an input seek, so what comes before it is only demuxed, not decoded. Answers the seconds written.
 */
export async function decodeTail(
  ffmpegPath: string,
  inputPath: string,
  output: string,
  startSeconds: number,
  context: StepContext,
  log: (line: string) => void = () => {},
): Promise<number> {
  const probe = await probeMedia(ffmpegPath, inputPath, log);
  const args = ["-ss", startSeconds.toFixed(3), "-f", probe.demuxer, "-i", inputPath, "-vn", "-map", "0:a:0", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav"];
  await ffmpegToFile(ffmpegPath, args, output, context, (line) => log(`ffmpeg tail ${line}`));
  return Math.max(0, statSync(output).size - WAV_HEADER_BYTES) / BYTES_PER_SECOND;
}

/**
 * Runs ffmpeg over restricted inputs with `args` (input and output options), writing
 * `<output>.part`, then renames it to `output`: the file is whole or absent. Killed when the step
 * is aborted (canceled); a failure is unsupported_media, ffmpeg's own words going to `log` only.
 */
async function ffmpegToFile(ffmpegPath: string, args: string[], output: string, context: StepContext, log: (line: string) => void): Promise<void> {
  const partial = `${output}.part`;
  const proc = Bun.spawn([ffmpegPath, "-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...restrictedInputArgs(), ...args, partial], {
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
    env: childEnvironment(process.env),
  });
  const abort = () => proc.kill("SIGKILL");
  context.signal.addEventListener("abort", abort, { once: true });
  if (context.signal.aborted) abort();
  try {
    const stderr = await new Response(proc.stderr).text();
    const code = await proc.exited;
    if (context.signal.aborted) throw canceled();
    if (code !== 0) {
      log(`exited with ${code}: ${lastLines(stderr.slice(-64 * 1024))}`);
      throw new EngineError("unsupported_media", NOT_A_RECORDING, false);
    }
    renameSync(partial, output);
  } finally {
    context.signal.removeEventListener("abort", abort);
    rmSync(partial, { force: true });
  }
}

function canceled(): EngineError {
  return new EngineError("canceled", "Decoding was canceled.", false);
}

function tooLong(maxSeconds: number): EngineError {
  return new EngineError("recording_too_long", `The recording is longer than the limit of ${formatDuration(maxSeconds)}.`, false);
}

/** 36000 -> "10 h", 5400 -> "1 h 30 min", 90 -> "1 min 30 s". */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.round(seconds % 60);
  return [h && `${h} h`, m && `${m} min`, s && `${s} s`].filter(Boolean).join(" ") || "0 s";
}

/** A stretch of a recording, in seconds from its start. */
export interface TimeSpan {
  start: number;
  end: number;
}

/** Padding added to each side of a silenced span: word timings are estimates, a syllable must not leak past them. */
export const SILENCE_PAD_SECONDS = 0.15;
/**
 * Most `between()` terms in one filter expression. A recording with more redacted words than this
 * has its closest spans merged (never shrunk): the filter stays a bounded argument whatever the
 * transcript says, at the cost of silencing the short gaps between the merged words.
 */
export const MAX_SILENCE_SPANS = 1000;

/**
 * The spans to silence: each padded, clamped at 0, sorted, those that touch or overlap merged,
 * then the nearest neighbours merged until there are at most `max`. Non-finite or empty spans are
 * dropped (a transcript's word with no length still gets its padding).
 */
export function silenceSpans(spans: readonly TimeSpan[], pad = SILENCE_PAD_SECONDS, max = MAX_SILENCE_SPANS): TimeSpan[] {
  const padded = spans
    .filter((s) => Number.isFinite(s.start) && Number.isFinite(s.end) && s.end >= s.start)
    .map((s) => ({ start: Math.max(0, s.start - pad), end: s.end + pad }))
    .sort((a, b) => a.start - b.start);
  const merged: TimeSpan[] = [];
  for (const span of padded) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  while (merged.length > max) {
    // Join the pair with the smallest gap: what is silenced only grows.
    let best = 0;
    for (let i = 1; i < merged.length - 1; i++) if (merged[i + 1]!.start - merged[i]!.end < merged[best + 1]!.start - merged[best]!.end) best = i;
    merged[best]!.end = merged[best + 1]!.end;
    merged.splice(best + 1, 1);
  }
  return merged;
}

/**
 * ffmpeg's audio filter that mutes `spans` (already padded and merged by silenceSpans). A filter's
 * `enable` is decided per frame, at the frame's start, and a decoder's frames can last a tenth of
 * a second: the audio is cut into 256-sample frames first (5 ms at 48 kHz, well inside the pad).
 */
export function silenceFilter(spans: readonly TimeSpan[]): string {
  const terms = spans.map((s) => `between(t,${s.start.toFixed(3)},${s.end.toFixed(3)})`);
  return `asetnsamples=n=256:p=0,volume=0:enable='${terms.join("+")}'`;
}

/**
 * Writes a copy of a recording's first audio stream with `spans` muted (digital silence), to
 * `output`: FLAC (lossless, so what is not muted keeps its level exactly) at the recording's own
 * rate and channels, or, with `format: "wav"`, the 16 kHz mono PCM the engines read. Video, other
 * streams and metadata (titles, comments) are dropped: a redacted recording keeps only its sound.
 * The container is probed under the same allowlists as decoding. Written to `<output>.part` and
 * renamed, so `output` is whole or absent.
 */
export async function silenceAudio(
  ffmpegPath: string,
  inputPath: string,
  output: string,
  spans: readonly TimeSpan[],
  context: StepContext,
  options: { format: "flac" | "wav"; log?(line: string): void },
): Promise<void> {
  const log = options.log ?? (() => {});
  if (context.signal.aborted) throw canceled();
  const probe = await probeMedia(ffmpegPath, inputPath, log);
  const muted = silenceSpans(spans);
  const filter = muted.length ? ["-af", silenceFilter(muted)] : [];
  const codec = options.format === "wav" ? ["-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav"] : ["-c:a", "flac", "-f", "flac"];
  const args = ["-f", probe.demuxer, "-i", inputPath, "-vn", "-sn", "-dn", "-map", "0:a:0", "-map_metadata", "-1", ...filter, ...codec, "-fflags", "+bitexact", "-flags:a", "+bitexact"];
  await ffmpegToFile(ffmpegPath, args, output, context, (line) => log(`ffmpeg silence ${line}`));
}
