import { restrictedInputArgs, isAllowedDemuxer } from "./media-containers.ts";
import { EngineError } from "./types.ts";
import { childEnvironment } from "../lib/child-env.ts";

export interface MediaProbe {
  /** ffmpeg's name of the container's demuxer, e.g. "mov,mp4,m4a,3gp,3g2,mj2"; passed back as -f. */
  demuxer: string;
  /** What the container says its duration is; null when it does not say. Not to be trusted alone. */
  durationSeconds: number | null;
}

export const NOT_A_RECORDING = "The file is not a recording ffmpeg can decode.";

/**
 * Finds the container by content (ffmpeg's probing, under the same allowlists as decoding) and
 * its announced duration, before anything is decoded. The file's name plays no part: recordings
 * are stored under a neutral name. Raw ffmpeg output never leaves this function in a message:
 * it can name server paths; `log` receives it for the operator.
 */
export async function probeMedia(
  ffmpegPath: string,
  inputPath: string,
  log: (line: string) => void = () => {},
  timeoutMs?: number,
): Promise<MediaProbe> {
  const proc = Bun.spawn([ffmpegPath, "-nostdin", "-hide_banner", ...restrictedInputArgs(), "-i", inputPath], {
    env: childEnvironment(process.env),
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
  });
  // A probe that outlasts its time is killed: what it printed by then decides, usually a refusal.
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  let text: string;
  try {
    // Only the head of the banner matters; a hostile file cannot make this read unbounded.
    text = (await new Response(proc.stderr).text()).slice(0, 64 * 1024);
    await proc.exited;
  } finally {
    clearTimeout(timer);
  }
  const input = /^Input #0, (.+?), from '/m.exec(text);
  if (!input || !isAllowedDemuxer(input[1]!)) {
    log(`probe refused the recording: ${lastLines(text)}`);
    throw new EngineError("unsupported_media", NOT_A_RECORDING, false);
  }
  if (!/^\s*Stream #0:\d+.*: Audio: /m.test(text)) {
    throw new EngineError("no_audio", "The recording contains no audio stream.", false);
  }
  const duration = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(text);
  return {
    demuxer: input[1]!,
    durationSeconds: duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : null,
  };
}

export function lastLines(text: string): string {
  return text.trim().split("\n").slice(-3).join(" | ").slice(0, 500);
}
