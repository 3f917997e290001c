import type { WhisperDecoding } from "../decoding.ts";
import type { ChunkSegment } from "../timestamps.ts";

/** One whisper.cpp binding behind the engine: a loaded model that transcribes chunks of audio. */
export interface WhisperBackend {
  /** e.g. "smart-whisper 0.8.1 (cpu)"; goes into the transcription's model label. */
  readonly name: string;
  /**
   * Transcribes one chunk (at most 30 s of 16 kHz mono audio). Times in the result are seconds
   * from the chunk's start; `language` is the language whisper used (detected when null was given).
   */
  transcribe(
    audio: Int16Array,
    options: {
      language: string | null;
      threads: number;
      decoding: WhisperDecoding;
      /** Called as segments come out, with the chunk time reached, in seconds. */
      onProgress(seconds: number): void;
    },
  ): Promise<{ language: string | null; segments: ChunkSegment[] }>;
  close(): Promise<void>;
}

export type BackendName = "smart-whisper" | "fugood";
