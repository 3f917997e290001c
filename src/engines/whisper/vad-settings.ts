/** What a voice activity detector is and how it is tuned, shared by the ggml (vad.ts) and ONNX (vad-onnx.ts) detectors. */
import type { Region } from "./chunks.ts";

/** Silero VAD settings (whisper.cpp's VAD through @fugood/whisper.node). */
export interface VadSettings {
  /** Speech probability above which a frame is speech. Default 0.5. */
  threshold: number;
  /** Shorter speech is ignored, ms. Default 250. */
  minSpeechDurationMs: number;
  /** A pause at least this long ends a speech region, ms. Default 300. */
  minSilenceDurationMs: number;
  /** Longer speech is split (at a pause where possible) so a region fits whisper's 30 s window, s. Default 28. */
  maxSpeechDurationS: number;
  /** Padding the VAD adds to each region, ms (the engine pads again when packing chunks). Default 30. */
  speechPadMs: number;
}

export const DEFAULT_VAD: Readonly<VadSettings> = Object.freeze({
  threshold: 0.5,
  minSpeechDurationMs: 250,
  minSilenceDurationMs: 300,
  maxSpeechDurationS: 28,
  speechPadMs: 30,
});

export interface SpeechDetector {
  detect(samples: Int16Array): Promise<Region[]>;
  close(): Promise<void>;
}
