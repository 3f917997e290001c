import type { ModelFile } from "../../model-file.ts";
import { EngineError } from "../../types.ts";
import { maxTextContext, type WhisperDecoding } from "../decoding.ts";
import type { ChunkSegment } from "../timestamps.ts";
import { toFloat32 } from "../../wav.ts";
import type { WhisperBackend } from "./backend.ts";
import { importNative } from "../../native.ts";

/** The part of smart-whisper (0.8.1) used here; it is loaded at run time, so typed by hand. */
interface SmartWhisperModel {
  readonly handle: unknown;
  free(): Promise<void>;
}
interface SmartWhisperToken {
  text: string;
  id: number;
  p: number;
  from?: number;
  to?: number;
}
interface SmartWhisperSegment {
  from: number;
  to: number;
  text: string;
  lang?: string;
  tokens?: SmartWhisperToken[];
}
interface SmartWhisperModule {
  WhisperModel: { load(file: string, gpu?: boolean): Promise<SmartWhisperModel> };
  binding: {
    transcribe(
      handle: unknown,
      pcm: Float32Array,
      params: Record<string, unknown>,
      finish: (results: SmartWhisperSegment[] | Error) => void,
      progress: (result: SmartWhisperSegment) => void,
    ): void;
  };
}

export const SMART_WHISPER_PACKAGE = "smart-whisper";

/** Loads the smart-whisper module, or returns why it cannot be used. */
export async function loadSmartWhisper(): Promise<SmartWhisperModule | Error> {
  try {
    const module = (await importNative<unknown>(SMART_WHISPER_PACKAGE)) as Partial<SmartWhisperModule> & { default?: Partial<SmartWhisperModule> };
    const resolved = module.WhisperModel ? module : module.default;
    if (!resolved?.WhisperModel || !resolved.binding) return new Error("smart-whisper does not export WhisperModel and binding");
    return resolved as SmartWhisperModule;
  } catch (error) {
    return error as Error;
  }
}

/** whisper_full_params for smart-whisper's binding (snake_case, times in ms). */
export function smartWhisperParams(language: string | null, threads: number, decoding: WhisperDecoding): Record<string, unknown> {
  const params: Record<string, unknown> = {
    strategy: decoding.beamSize > 1 ? 1 : 0,
    beam_size: decoding.beamSize,
    best_of: decoding.bestOf,
    temperature: decoding.temperature,
    temperature_inc: decoding.temperatureInc,
    n_max_text_ctx: maxTextContext(decoding),
    no_context: decoding.maxContext === 0,
    no_speech_thold: decoding.noSpeechThreshold,
    logprob_thold: decoding.logprobThreshold,
    entropy_thold: decoding.entropyThreshold,
    max_tokens: decoding.maxTokensPerSegment,
    token_timestamps: decoding.wordTimestamps,
    suppress_blank: true,
    suppress_non_speech_tokens: decoding.suppressNonSpeechTokens,
    n_threads: threads,
    language: language ?? "auto",
    translate: false,
    print_progress: false,
    print_realtime: false,
    print_timestamps: false,
    format: "detail",
  };
  if (decoding.initialPrompt) params.initial_prompt = decoding.initialPrompt;
  return params;
}

/**
 * smart-whisper builds whisper.cpp from its bundled source with node-gyp. Built with
 * -mavx2 -mfma -mf16c (build-smart-whisper.sh), it encodes a 30 s window of the tiny
 * architecture in about 1 s on 2 cores; built without them, in about 20 s (docs/engines/whisper.md).
 */
export async function createSmartWhisperBackend(module: SmartWhisperModule, file: ModelFile, useGpu: boolean): Promise<WhisperBackend> {
  let model: SmartWhisperModel;
  try {
    model = await module.WhisperModel.load(file.path, useGpu);
  } catch (error) {
    throw new EngineError("model_invalid", `whisper.cpp could not load the whisper model ${file.name}.`, false, { detail: (error as Error).message });
  }
  let closed = false;
  return {
    name: `smart-whisper (${useGpu ? "gpu" : "cpu"})`,
    async transcribe(audio, { language, threads, decoding, onProgress }) {
      if (closed) throw new Error("the whisper model was released");
      const params = smartWhisperParams(language, threads, decoding);
      const results = await new Promise<SmartWhisperSegment[]>((resolve, reject) => {
        module.binding.transcribe(
          model.handle,
          toFloat32(audio),
          params,
          (out) => (out instanceof Error || !Array.isArray(out) ? reject(out) : resolve(out)),
          (segment) => onProgress(segment.to / 1000),
        );
      }).catch((error: unknown) => {
        throw new EngineError("transcription_failed", "whisper.cpp failed on this recording.", true, { detail: (error as Error)?.message ?? String(error) });
      });
      const segments: ChunkSegment[] = results.map((s) => ({
        start: s.from / 1000,
        end: s.to / 1000,
        text: s.text,
        tokens: decoding.wordTimestamps
          ? (s.tokens ?? []).filter((t) => t.from !== undefined && t.to !== undefined).map((t) => ({ text: t.text, start: t.from! / 1000, end: t.to! / 1000 }))
          : undefined,
      }));
      const detected = results.find((s) => s.lang)?.lang ?? null;
      return { language: language ?? detected, segments };
    },
    async close() {
      if (closed) return;
      closed = true;
      await model.free();
    },
  };
}
