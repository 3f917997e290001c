import { renameSync, rmSync, statSync } from "node:fs";
import { readLines } from "../lib/lines.ts";
import { EngineError, type DecodedAudio, type StepContext } from "./types.ts";

const WAV_HEADER_BYTES = 44;
const BYTES_PER_SECOND = 16_000 * 2; // 16 kHz, mono, 16-bit

/**
 * Decodes any container ffmpeg reads (audio or video) to 16 kHz mono 16-bit WAV, streaming:
 * ffmpeg reads and writes files itself, nothing passes through this process but its progress.
 */
export async function decodeToWav(
  ffmpegPath: string,
  inputPath: string,
  outputPath: string,
  context: StepContext,
): Promise<DecodedAudio> {
  const totalSeconds = await probeDuration(ffmpegPath, inputPath);
  const partial = `${outputPath}.part`;
  const proc = Bun.spawn(
    [ffmpegPath, "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", inputPath, "-vn", "-map", "0:a:0", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-fflags", "+bitexact", "-flags:a", "+bitexact", "-f", "wav", "-progress", "pipe:1", "-nostats", partial],
    { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  const abort = () => proc.kill("SIGKILL");
  context.signal.addEventListener("abort", abort, { once: true });
  if (context.signal.aborted) abort();
  try {
    const stderr = new Response(proc.stderr).text();
    for await (const raw of readLines(proc.stdout)) {
      const line = raw.trim();
      const match = /^out_time_us=(\d+)/.exec(line);
      if (match && totalSeconds) context.progress(Math.min(1, Number(match[1]) / 1e6 / totalSeconds));
    }
    const code = await proc.exited;
    if (context.signal.aborted) throw new EngineError("canceled", "Decoding was canceled.", false);
    if (code !== 0) {
      const reason = (await stderr).trim().split("\n").slice(-3).join(" ").slice(0, 500);
      throw new EngineError("unsupported_media", `ffmpeg could not decode the recording as audio: ${reason || `exit code ${code}`}`, false);
    }
    const bytes = statSync(partial).size - WAV_HEADER_BYTES;
    if (bytes <= 0) throw new EngineError("no_audio", "The recording contains no audio samples.", false);
    renameSync(partial, outputPath);
    context.progress(1);
    return { wavPath: outputPath, durationSeconds: bytes / BYTES_PER_SECOND };
  } finally {
    context.signal.removeEventListener("abort", abort);
    rmSync(partial, { force: true });
  }
}

/** Duration in seconds from ffmpeg's own probe (its banner), or null when it cannot tell. */
async function probeDuration(ffmpegPath: string, inputPath: string): Promise<number | null> {
  const proc = Bun.spawn([ffmpegPath, "-nostdin", "-hide_banner", "-i", inputPath], { stdout: "ignore", stderr: "pipe", stdin: "ignore" });
  const text = await new Response(proc.stderr).text();
  await proc.exited;
  const match = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(text);
  return match ? Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]) : null;
}
