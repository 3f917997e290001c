import { basename, extname } from "node:path";
import { checkModelFile, modelFile, type ExpectedModelFile, type ModelSource } from "../model-file.ts";
import { EngineError, type SpeechSegment, type StepContext, type Transcriber, type TranscriptionResult } from "../types.ts";
import type { BackendName, WhisperBackend } from "./backends/backend.ts";
import { createFugoodBackend } from "./backends/fugood.ts";
import { createSmartWhisperBackend, loadSmartWhisper } from "./backends/smart-whisper.ts";
import { type Chunk, chunkAudio, DEFAULT_PACK, normaliseRegions, packRegions, type Region } from "./chunks.ts";
import { resolveDecoding, type WhisperDecoding } from "./decoding.ts";
import { repetitionGuard, type RepetitionGuardOptions } from "./guard.ts";
import { whisperLanguage } from "./languages.ts";
import { checkVadModel, checkWhisperModel } from "./ggml-check.ts";
import { chooseBackend } from "./select.ts";
import { finaliseSegments, mapChunkSegments } from "./timestamps.ts";
import { createSpeechDetector, isOnnxVad } from "./vad.ts";
import { DEFAULT_VAD, type SpeechDetector, type VadSettings } from "./vad-settings.ts";
import { readWavInt16, SAMPLE_RATE } from "../wav.ts";

export { DEFAULT_DECODING, type WhisperDecoding } from "./decoding.ts";
export { DEFAULT_GUARD, repetitionGuard, type RepetitionGuardOptions } from "./guard.ts";
export { DEFAULT_VAD, type VadSettings } from "./vad-settings.ts";

export interface WhisperTranscriberOptions {
  /** A whisper.cpp ggml model file (e.g. models/whisper/ggml-base.bin). */
  modelPath: ModelSource;
  /** Silero VAD model (ONNX, or whisper.cpp's ggml); null transcribes everything (no gating: not recommended). */
  vadModelPath: ModelSource | null;
  /** CPU threads for whisper and the VAD. */
  threads: number;
  /** Use the GPU (CUDA build) when it loads here; the CPU otherwise. */
  useGpu: boolean;
  decoding?: Partial<WhisperDecoding>;
  vad?: Partial<VadSettings>;
  guard?: Partial<RepetitionGuardOptions>;
  /** "auto" (default) picks per device (select.ts); a name forces that binding. */
  backend?: BackendName | "auto";
  /** The model's name in results; default the file name without extension. */
  modelName?: string;
  /** Where the engine says which binding it chose and why; default stderr. */
  log?: (line: string) => void;
  /** Size and sha256 from models/catalogue.json: a file that differs is refused (model_invalid). */
  expectedModels?: { whisper?: ExpectedModelFile; vad?: ExpectedModelFile };
}

export type WhisperTranscriber = Transcriber & {
  /** The binding in use, e.g. "smart-whisper (cpu)". */
  readonly backend: string;
  close(): Promise<void>;
};

/** Share of the progress bar given to the VAD pass. */
const VAD_SHARE = 0.1;

/**
 * Loads the whisper model (and the VAD model) once; transcribe() then reuses them. A recording
 * goes: Silero VAD → speech packed into chunks of at most 30 s → whisper on each chunk (the
 * longest first when the language is to be detected; the others then use the detected one) →
 * timestamps mapped back to the recording, clamped and ordered → repetition guard.
 */
export async function createWhisperTranscriber(options: WhisperTranscriberOptions): Promise<WhisperTranscriber> {
  let decoding: WhisperDecoding;
  try {
    decoding = resolveDecoding(options.decoding);
  } catch (error) {
    throw new EngineError("engine_config_invalid", (error as Error).message, false);
  }
  const vadSettings: VadSettings = { ...DEFAULT_VAD, ...options.vad };
  const threads = Number.isFinite(options.threads) ? Math.max(1, Math.floor(options.threads)) : 1;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const model = modelFile(options.modelPath, options.expectedModels?.whisper);
  const vadModel = options.vadModelPath === null ? null : modelFile(options.vadModelPath, options.expectedModels?.vad);
  const modelName = options.modelName ?? basename(model.path, extname(model.path));

  // Both files are checked before either loads: smart-whisper crashes the process on a bad model.
  await checkModelFile(model, "whisper");
  checkWhisperModel(model);
  if (vadModel) {
    await checkModelFile(vadModel, "VAD");
    if (!isOnnxVad(vadModel)) checkVadModel(vadModel); // an ONNX one is checked as it loads
  }

  const choice = await chooseBackend(options.useGpu, options.backend ?? "auto");
  let backend: WhisperBackend;
  if (choice.backend === "smart-whisper") {
    const module = await loadSmartWhisper();
    if (module instanceof Error) throw module;
    // The build from build-smart-whisper.sh is CPU-only; GPU hosts get the @fugood CUDA build.
    backend = await createSmartWhisperBackend(module, model, false);
  } else {
    backend = await createFugoodBackend(choice.variant, model, choice.variant === "cuda");
  }
  let vad: SpeechDetector | null = null;
  try {
    if (vadModel) vad = await createSpeechDetector(vadModel, choice.variant, threads, vadSettings);
  } catch (error) {
    await backend.close();
    throw error;
  }
  log(`whisper: ${backend.name} for ${modelName} (${choice.reason}); VAD ${vad ? (isOnnxVad(vadModel!) ? "Silero (ONNX, sherpa-onnx)" : "Silero (ggml, whisper.cpp)") : "off"}; ${threads} thread(s)`);

  return {
    backend: backend.name,
    async transcribe(input, context): Promise<TranscriptionResult> {
      return transcribeRecording(input, context, { backend, vad, decoding, threads, modelName, guard: options.guard ?? {} });
    },
    async close() {
      await Promise.allSettled([backend.close(), vad?.close()]);
    },
  };
}

interface Loaded {
  backend: WhisperBackend;
  vad: SpeechDetector | null;
  decoding: WhisperDecoding;
  threads: number;
  modelName: string;
  guard: Partial<RepetitionGuardOptions>;
}

async function transcribeRecording(
  input: { wavPath: string; language: string | null; prompt?: string | null },
  context: StepContext,
  loaded: Loaded,
): Promise<TranscriptionResult> {
  // The meeting's vocabulary, when it has one, is the prompt in place of the configured one.
  const decoding: WhisperDecoding = input.prompt ? { ...loaded.decoding, initialPrompt: input.prompt } : loaded.decoding;
  const checkCanceled = () => {
    if (context.signal.aborted) throw new EngineError("canceled", "Transcription was canceled.", false);
  };
  checkCanceled();
  const requested = whisperLanguage(input.language);
  const audio = readWavInt16(input.wavPath);
  const duration = audio.durationSeconds;
  context.progress(0);

  const speech: Region[] = loaded.vad ? await loaded.vad.detect(audio.int16) : [{ start: 0, end: duration }];
  checkCanceled();
  context.progress(VAD_SHARE);
  const regions = normaliseRegions(speech, duration, loaded.vad ? DEFAULT_PACK.padSeconds : 0, DEFAULT_PACK.joinGapSeconds);
  const chunks = packRegions(regions, DEFAULT_PACK);
  // Detecting the language on the longest chunk gives whisper the most speech to judge by.
  const order: Chunk[] = requested === null ? [...chunks].sort((a, b) => b.duration - a.duration) : chunks;
  const total = chunks.reduce((sum, c) => sum + c.duration, 0);

  let language = requested;
  let done = 0;
  const segments: SpeechSegment[] = [];
  for (const chunk of order) {
    checkCanceled();
    const report = (seconds: number) => context.progress(VAD_SHARE + (1 - VAD_SHARE) * Math.min(1, (done + Math.min(chunk.duration, Math.max(0, seconds))) / total));
    const result = await loaded.backend.transcribe(chunkAudio(chunk, audio.int16, SAMPLE_RATE), {
      language,
      threads: loaded.threads,
      decoding,
      onProgress: report,
    });
    if (language === null && result.language) language = result.language;
    segments.push(...mapChunkSegments(chunk, result.segments, loaded.decoding.wordTimestamps));
    done += chunk.duration;
    report(0);
  }
  checkCanceled();
  const finished = repetitionGuard(finaliseSegments(segments, duration), loaded.guard);
  context.progress(1);
  return { language, model: loaded.modelName, segments: finished };
}
