import { isAllowedDemuxer, restrictedInputArgs } from "./media-containers.ts";

/** Long enough for ffmpeg to read a container's header; a file it cannot read by then is measured at decoding. */
const PROBE_TIMEOUT_MS = 10_000;
const MAX_BANNER_CHARS = 64 * 1024;

/**
 * The duration a recording's container announces, read by ffmpeg's probing under the decoder's
 * allowlists (media-containers.ts) without decoding anything, or null when it does not say, is
 * not a container the service decodes, or takes too long to read. It serves admission only
 * (what to reserve before processing: usage/admission.ts): a header can lie, so the decode step
 * measures the audio itself and the reservation follows (meetings/processing.ts). ffmpeg runs with
 * an empty environment (PATH only), killed after 10 seconds.
 */
export function announcedDuration(ffmpegPath: string): (path: string) => Promise<number | null> {
  return async (path) => {
    const proc = Bun.spawn([ffmpegPath, "-nostdin", "-hide_banner", ...restrictedInputArgs(), "-i", path], {
      stdout: "ignore",
      stderr: "pipe",
      stdin: "ignore",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    try {
      const text = (await new Response(proc.stderr).text()).slice(0, MAX_BANNER_CHARS);
      await proc.exited;
      const input = /^Input #0, (.+?), from '/m.exec(text);
      if (!input || !isAllowedDemuxer(input[1]!)) return null;
      const duration = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(text);
      return duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : null;
    } finally {
      clearTimeout(timer);
    }
  };
}
