import { EngineError, type Diarizer, type SpeakerTurn, type StepContext } from "../types.ts";
import { lazy } from "../lazy.ts";
import { checkModelFile, modelFile, type ExpectedModelFile, type ModelSource } from "../model-file.ts";
import { checkDiarizationModel } from "./onnx-check.ts";
import { clampedRerun, planSpeakers, type ClusteringConfig } from "./speakers.ts";
import { readWavFloat32, SAMPLE_RATE } from "../wav.ts";
import { requireNative } from "../native.ts";
import { serialQueue } from "../serial.ts";

/**
 * Cosine-distance threshold for sherpa's agglomerative (single-linkage) clustering: clusters
 * closer than this merge, so higher means fewer speakers. Chosen by measurement on the shared
 * fixtures; see docs/engines/diarization.md.
 */
export const DEFAULT_CLUSTERING_THRESHOLD = 0.8;
/** pyannote's defaults: drop speech turns shorter than this, fill gaps shorter than that. */
export const DEFAULT_MIN_DURATION_ON = 0.3;
export const DEFAULT_MIN_DURATION_OFF = 0.5;

export interface SherpaDiarizerOptions {
  /** pyannote-style segmentation ONNX (sherpa-onnx's OfflineSpeakerSegmentationPyannoteModel). */
  segmentationModelPath: ModelSource;
  /** wespeaker / 3D-Speaker embedding ONNX. */
  embeddingModelPath: ModelSource;
  threads: number;
  clusteringThreshold?: number;
  minDurationOn?: number;
  minDurationOff?: number;
  /** Size and sha256 to check the files against (from models/catalogue.json) before loading. */
  expectedModels?: { segmentation?: ExpectedModelFile; embedding?: ExpectedModelFile };
}

// The slice of sherpa-onnx-node this uses; the package ships no type declarations.
interface SherpaSegment {
  start: number;
  end: number;
  speaker: number;
}
interface SherpaDiarization {
  handle: unknown;
  sampleRate: number;
  process(samples: Float32Array): SherpaSegment[];
  setConfig(config: { clustering: ClusteringConfig }): void;
}
interface SherpaModule {
  OfflineSpeakerDiarization: new (config: object) => SherpaDiarization;
}
interface SherpaAddon {
  /** Runs on a libuv thread; calls back (embeddings done, embeddings total) from the JS thread. */
  offlineSpeakerDiarizationProcessAsync?: (
    handle: unknown,
    samples: Float32Array,
    onProgress: (done: number, total: number) => number,
  ) => Promise<SherpaSegment[]>;
}

function loadSherpa(): { sherpa: SherpaModule; addon: SherpaAddon } {
  try {
    // Lazily, so that importing this module never loads the native library.
    const sherpa = requireNative<SherpaModule>("sherpa-onnx-node");
    const addon = requireNative<SherpaAddon>("sherpa-onnx-node/addon.js");
    return { sherpa, addon };
  } catch (error) {
    throw new EngineError("engine_unavailable", "sherpa-onnx-node cannot be loaded.", false, { detail: (error as Error).message });
  }
}

function canceled(): EngineError {
  return new EngineError("canceled", "Diarization was canceled.", false);
}

/**
 * Sherpa's turns as the job's turns: ordered, inside the audio, non-empty, and clusters
 * renumbered 0, 1, ... in order of first appearance.
 */
export function normaliseTurns(segments: SherpaSegment[], audioSeconds: number): SpeakerTurn[] {
  const renumber = new Map<number, number>();
  const turns: SpeakerTurn[] = [];
  const ordered = [...segments].sort((a, b) => a.start - b.start || a.end - b.end);
  for (const s of ordered) {
    const start = Math.max(0, Math.min(audioSeconds, s.start));
    const end = Math.max(0, Math.min(audioSeconds, s.end));
    if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start || !Number.isInteger(s.speaker)) continue;
    if (!renumber.has(s.speaker)) renumber.set(s.speaker, renumber.size);
    turns.push({ start, end, speaker: renumber.get(s.speaker)! });
  }
  return turns;
}

const speakerCount = (turns: SpeakerTurn[]) => new Set(turns.map((t) => t.speaker)).size;

/**
 * Speaker diarization with sherpa-onnx's OfflineSpeakerDiarization (pyannote-style segmentation,
 * speaker embeddings, agglomerative clustering). Both model files are checked before sherpa
 * loads them (a bad file would abort the process); they are loaded once here, and the one
 * instance is reused, its clustering switched per call with setConfig. Calls are serialised:
 * one native run at a time.
 *
 * Throws EngineError model_missing / model_invalid (not retryable) for unusable model files.
 */
export async function createSherpaDiarizer(options: SherpaDiarizerOptions): Promise<Diarizer> {
  const threshold = options.clusteringThreshold ?? DEFAULT_CLUSTERING_THRESHOLD;
  if (!(threshold > 0)) throw new EngineError("config_invalid", `The clustering threshold must be positive, not ${threshold}.`, false);
  const threads = Math.max(1, Math.floor(options.threads) || 1);

  const segmentation = modelFile(options.segmentationModelPath, options.expectedModels?.segmentation);
  const embedding = modelFile(options.embeddingModelPath, options.expectedModels?.embedding);
  for (const [model, role] of [[segmentation, "segmentation"], [embedding, "embedding"]] as const) {
    await checkModelFile(model, role);
    checkDiarizationModel(model, role);
  }

  const { sherpa, addon } = loadSherpa();
  const initial: ClusteringConfig = { numClusters: 0, threshold };
  let engine: SherpaDiarization;
  try {
    engine = new sherpa.OfflineSpeakerDiarization({
      segmentation: { pyannote: { model: segmentation.path }, numThreads: threads, debug: 0 },
      embedding: { model: embedding.path, numThreads: threads, debug: 0 },
      clustering: initial,
      minDurationOn: options.minDurationOn ?? DEFAULT_MIN_DURATION_ON,
      minDurationOff: options.minDurationOff ?? DEFAULT_MIN_DURATION_OFF,
    });
  } catch (error) {
    throw new EngineError("model_invalid", "sherpa-onnx refused the diarization models.", false, { detail: (error as Error).message });
  }
  if (engine.sampleRate !== SAMPLE_RATE) {
    throw new EngineError("model_invalid", `The diarization models expect ${engine.sampleRate} Hz audio, not ${SAMPLE_RATE} Hz.`, false);
  }
  let current = initial;

  /** One native pass with the given clustering; `report` gets the fraction of embeddings done. */
  async function run(samples: Float32Array, clustering: ClusteringConfig, report: (f: number) => void): Promise<SherpaSegment[]> {
    if (clustering.numClusters !== current.numClusters || clustering.threshold !== current.threshold) {
      engine.setConfig({ clustering });
      current = clustering;
    }
    const processAsync = addon.offlineSpeakerDiarizationProcessAsync;
    if (!processAsync) return engine.process(samples);
    // The callback fires once per embedding, after segmentation (which reports nothing).
    return processAsync(engine.handle, samples, (done, total) => {
      if (total > 0) report(done / total);
      return 0;
    });
  }

  const queue = serialQueue();

  async function diarize(input: Parameters<Diarizer["diarize"]>[0], context: StepContext): Promise<SpeakerTurn[]> {
    const { signal } = context;
    const plan = planSpeakers(input.minSpeakers, input.maxSpeakers, input.solo);
    // One speaker: turns would add nothing (the caller labels every segment SPEAKER_00 when
    // there are none), so the audio is not even read.
    if (plan.kind === "single") {
      context.progress(1);
      return [];
    }
    if (signal.aborted) throw canceled();
    const samples = readWavFloat32(input.wavPath);
    const seconds = samples.length / SAMPLE_RATE;
    context.progress(0.05);
    if (samples.length === 0) {
      context.progress(1);
      return [];
    }

    let progressed = 0.05;
    const phase = (from: number, to: number) => (fraction: number) => {
      const value = from + (to - from) * Math.min(1, Math.max(0, fraction));
      if (value > progressed) context.progress((progressed = value));
    };

    if (signal.aborted) throw canceled();
    const first: ClusteringConfig = plan.kind === "exact" ? { numClusters: plan.count, threshold } : { numClusters: 0, threshold };
    // A range may need a second pass, so the first gets only part of the bar.
    const firstEnd = plan.kind === "range" ? 0.6 : 0.98;
    let turns = normaliseTurns(await run(samples, first, phase(0.05, firstEnd)), seconds);

    const rerun = clampedRerun(plan, speakerCount(turns));
    if (rerun !== null) {
      if (signal.aborted) throw canceled();
      turns = normaliseTurns(await run(samples, { numClusters: rerun, threshold }, phase(firstEnd, 0.98)), seconds);
    }
    if (signal.aborted) throw canceled();
    context.progress(1);
    return turns;
  }

  return {
    diarize: (input, context) => queue.run(() => diarize(input, context)),
  };
}

/**
 * The same diarizer, created by `preload()` (the worker's start) or its first call, so that an
 * unusable model fails the diarize step (with model_missing / model_invalid) rather than the
 * worker's start. A failed creation is retried on the next call: the files may have been fixed
 * meanwhile.
 */
export function lazySherpaDiarizer(options: SherpaDiarizerOptions): Diarizer & { preload(): Promise<unknown> } {
  const diarizer = lazy(() => createSherpaDiarizer(options));
  return { diarize: async (input, context) => (await diarizer()).diarize(input, context), preload: diarizer };
}
