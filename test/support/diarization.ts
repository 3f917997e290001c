import { existsSync } from "node:fs";
import { join } from "node:path";

/** Where the shared fixtures and diarization models are, for the tests; null parts are absent. */
const SHARED = join(import.meta.dir, "../../../shared");
export const FIXTURES = join(SHARED, "fixtures");

const SEGMENTATION = "segmentation-energy-pauses.onnx";
const EMBEDDING = "embedding-fbank-stats.onnx";

function modelsDir(): string | null {
  for (const dir of [join(SHARED, "models/diarization"), join(import.meta.dir, "../../models/diarization")]) {
    if (existsSync(join(dir, SEGMENTATION)) && existsSync(join(dir, EMBEDDING))) return dir;
  }
  return null;
}

const dir = modelsDir();
export const MODELS = dir ? { segmentation: join(dir, SEGMENTATION), embedding: join(dir, EMBEDDING) } : null;
export const HAVE_FIXTURES = existsSync(join(FIXTURES, "meeting-en-3spk.wav")) && existsSync(join(FIXTURES, "meeting-fr-2spk.wav"));

export function stepContext(signal: AbortSignal = new AbortController().signal) {
  const progress: number[] = [];
  return { progress, context: { signal, progress: (f: number) => void progress.push(f) } };
}
