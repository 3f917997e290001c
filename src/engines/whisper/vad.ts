import type { LibVariant, VadOptions, WhisperVadContext } from "@fugood/whisper.node";
import { modelFile, type ModelSource } from "../model-file.ts";
import { EngineError } from "../types.ts";
import { int16Buffer, loadFugood } from "./backends/fugood.ts";
import { checkVadModel } from "./ggml-check.ts";
import { createOnnxSpeechDetector } from "./vad-onnx.ts";
import type { SpeechDetector, VadSettings } from "./vad-settings.ts";

/** Whether a VAD model file is Silero's ONNX export (run by sherpa-onnx) rather than whisper.cpp's ggml one. */
export function isOnnxVad(source: ModelSource): boolean {
  return modelFile(source).path.toLowerCase().endsWith(".onnx");
}

/**
 * Loads the Silero VAD model once; detect() then finds speech regions in seconds. An .onnx model
 * runs on sherpa-onnx (vad-onnx.ts), a ggml one on whisper.cpp's VAD in @fugood/whisper.node.
 */
export async function createSpeechDetector(source: ModelSource, variant: LibVariant, threads: number, settings: VadSettings): Promise<SpeechDetector> {
  const model = modelFile(source);
  if (isOnnxVad(model)) return createOnnxSpeechDetector(model, threads, settings);
  checkVadModel(model); // whisper.cpp must never see a file that is not one
  const module = await loadFugood(variant);
  let context: WhisperVadContext;
  try {
    context = await (new module.WhisperVadContext({ filePath: model.path, useGpu: variant === "cuda", nThreads: threads }) as
      | WhisperVadContext
      | Promise<WhisperVadContext>);
  } catch (error) {
    throw new EngineError("model_invalid", `The Silero VAD model ${model.name} could not be loaded.`, false, { detail: (error as Error).message });
  }
  const options: VadOptions = { ...settings, samplesOverlap: 0.1 };
  return {
    async detect(samples) {
      if (samples.length === 0) return [];
      let found;
      try {
        found = await context.detectSpeechData(int16Buffer(samples), options);
      } catch (error) {
        throw new EngineError("vad_failed", "Voice activity detection failed.", true, { detail: (error as Error).message });
      }
      // detectSpeech reports t0/t1 in centiseconds.
      return found.map((s) => ({ start: s.t0 / 100, end: s.t1 / 100 })).filter((r) => r.end > r.start);
    },
    async close() {
      await context.release();
    },
  };
}
