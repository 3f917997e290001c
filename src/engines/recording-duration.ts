import { probeMedia } from "./media-probe.ts";
import { EngineError } from "./types.ts";

/** Long enough for ffmpeg to read a container's header; a file it cannot read by then is measured at decoding. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * The duration a recording's container announces (probeMedia: ffmpeg's probing under the
 * decoder's allowlists and the children's environment, nothing decoded), or null when it does not
 * say, is not a recording the service decodes, or takes over 10 seconds to read. It serves
 * admission only (what to reserve before processing: usage/admission-store.ts): a header can lie, so
 * the decode step measures the audio itself and the reservation follows (meetings/processing.ts).
 */
export function announcedDuration(ffmpegPath: string): (path: string) => Promise<number | null> {
  return async (path) => {
    try {
      return (await probeMedia(ffmpegPath, path, () => {}, PROBE_TIMEOUT_MS)).durationSeconds;
    } catch (error) {
      if (error instanceof EngineError) return null;
      throw error;
    }
  };
}
