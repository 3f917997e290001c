import { checkOnnxModel } from "../diarization/onnx-check.ts";
import { modelFile, type ModelSource } from "../model-file.ts";
import { requireNative } from "../native.ts";
import { EngineError } from "../types.ts";
import type { Region } from "./chunks.ts";
import type { SpeechDetector, VadSettings } from "./vad-settings.ts";
import { SAMPLE_RATE, toFloat32 } from "../wav.ts";

/** The part of sherpa-onnx-node's Vad used here. */
interface SherpaVad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  front(enableExternalBuffer?: boolean): { start: number; samples: Float32Array };
  pop(): void;
  flush(): void;
  reset(): void;
}

/** Silero's window at 16 kHz, in samples. */
const WINDOW = 512;
/** Samples fed between yields to the event loop, so progress and cancel messages get through. */
const YIELD_EVERY = SAMPLE_RATE * 20;

/**
 * Silero VAD (the ONNX export, v4 or v5) on sherpa-onnx's onnxruntime, which has AVX2 kernels:
 * about 0.4 % of real time on 2 cores, against 4 % for whisper.cpp's ggml Silero in the @fugood
 * prebuild (no AVX). Regions are padded by speechPadMs like whisper.cpp's VAD pads them.
 */
export function createOnnxSpeechDetector(source: ModelSource, threads: number, settings: VadSettings): SpeechDetector {
  const model = modelFile(source);
  checkOnnxModel(model, "VAD");
  let vad: SherpaVad;
  try {
    const { Vad } = requireNative<{ Vad: new (config: unknown, bufferSeconds: number) => SherpaVad }>("sherpa-onnx-node");
    vad = new Vad(
      {
        sileroVad: {
          model: model.path,
          threshold: settings.threshold,
          minSilenceDuration: settings.minSilenceDurationMs / 1000,
          minSpeechDuration: settings.minSpeechDurationMs / 1000,
          maxSpeechDuration: settings.maxSpeechDurationS,
          windowSize: WINDOW,
        },
        sampleRate: SAMPLE_RATE,
        numThreads: threads,
        provider: "cpu",
        debug: false,
      },
      // Its buffer holds the speech of the current region; regions are at most maxSpeechDurationS long.
      Math.ceil(settings.maxSpeechDurationS) + 30,
    );
  } catch (error) {
    throw new EngineError("model_invalid", `The Silero VAD model ${model.name} could not be loaded.`, false, { detail: (error as Error).message });
  }
  const pad = settings.speechPadMs / 1000;
  return {
    async detect(samples) {
      const total = samples.length / SAMPLE_RATE;
      const regions: Region[] = [];
      const drain = () => {
        while (!vad.isEmpty()) {
          const segment = vad.front(false);
          const start = segment.start / SAMPLE_RATE;
          regions.push({ start: Math.max(0, start - pad), end: Math.min(total, start + segment.samples.length / SAMPLE_RATE + pad) });
          vad.pop();
        }
      };
      vad.reset();
      try {
        for (let offset = 0; offset < samples.length; offset += WINDOW) {
          vad.acceptWaveform(toFloat32(samples, offset, Math.min(samples.length, offset + WINDOW)));
          drain();
          if (offset % YIELD_EVERY === 0 && offset > 0) await Bun.sleep(0);
        }
        vad.flush();
        drain();
      } catch (error) {
        throw new EngineError("vad_failed", "Voice activity detection failed.", true, { detail: (error as Error).message });
      }
      return regions.filter((r) => r.end > r.start);
    },
    async close() {
      vad.reset();
    },
  };
}
