import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { modelFile, unreadableModel, type ModelFile, type ModelSource } from "../model-file.ts";
import { EngineError } from "../types.ts";

/**
 * The format checks of whisper.cpp's ggml files (the whisper model, and the ggml Silero VAD),
 * run after the common file check (../model-file.ts) and before a binding loads the file.
 */

const GGML_MAGIC = 0x67676d6c; // "lmgg" on disk

/** Bytes per block and elements per block of the ggml tensor types a whisper model can hold. */
const GGML_TYPES: Record<number, [bytes: number, elements: number]> = {
  0: [4, 1], // f32
  1: [2, 1], // f16
  2: [18, 32], // q4_0
  3: [20, 32], // q4_1
  6: [22, 32], // q5_0
  7: [24, 32], // q5_1
  8: [34, 32], // q8_0
  10: [84, 256], // q2_K
  11: [110, 256], // q3_K
  12: [144, 256], // q4_K
  13: [176, 256], // q5_K
  14: [210, 256], // q6_K
};

class FileReader {
  private cache = Buffer.alloc(0);
  private cacheStart = 0;
  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}
  bytes(position: number, length: number): Buffer {
    if (position < 0 || position + length > this.size) throw new RangeError("past the end of the file");
    if (position < this.cacheStart || position + length > this.cacheStart + this.cache.length) {
      const want = Math.min(this.size - position, Math.max(length, 1 << 20));
      const buffer = Buffer.alloc(want);
      readSync(this.fd, buffer, 0, want, position);
      this.cache = buffer;
      this.cacheStart = position;
    }
    return this.cache.subarray(position - this.cacheStart, position - this.cacheStart + length);
  }
  i32(position: number): number {
    return this.bytes(position, 4).readInt32LE(0);
  }
}

function openModel(model: ModelFile, role: string): { fd: number; size: number } {
  try {
    const fd = openSync(model.path, "r");
    return { fd, size: fstatSync(fd).size };
  } catch (error) {
    throw unreadableModel(model, role, error);
  }
}

/**
 * Checks that a file is a whole whisper.cpp ggml model before a binding loads it: smart-whisper
 * crashes the process (a null dereference) when whisper.cpp fails to load a model, so a
 * truncated or foreign file must be caught here. Walks the header, mel filters, vocabulary and
 * every tensor's header, and checks that each tensor's data lies within the file.
 */
export function checkWhisperModel(source: ModelSource): { nMels: number; nVocab: number; tensors: number } {
  const model = modelFile(source);
  const { fd, size } = openModel(model, "whisper");
  const invalid = (why: string) => new EngineError("model_invalid", `The whisper model ${model.name} is not a usable whisper.cpp model: ${why}.`, false);
  try {
    const file = new FileReader(fd, size);
    if (size < 48 || file.bytes(0, 4).readUInt32LE(0) !== GGML_MAGIC) throw invalid("no ggml header");
    const hparams = Array.from({ length: 11 }, (_, i) => file.i32(4 + i * 4));
    const [nVocab = 0, audioCtx, audioState, audioHead, audioLayer, textCtx, textState, textHead, textLayer, nMels = 0] = hparams;
    const plausible = (v: number | undefined, max: number) => v !== undefined && Number.isInteger(v) && v > 0 && v <= max;
    if (
      !plausible(nVocab, 1_000_000) ||
      !plausible(audioCtx, 100_000) ||
      !plausible(audioState, 100_000) ||
      !plausible(audioHead, 1024) ||
      !plausible(audioLayer, 1024) ||
      !plausible(textCtx, 100_000) ||
      !plausible(textState, 100_000) ||
      !plausible(textHead, 1024) ||
      !plausible(textLayer, 1024) ||
      !plausible(nMels, 1024)
    ) {
      throw invalid(`implausible hyper-parameters ${hparams.join(", ")} (a VAD model given as the whisper model?)`);
    }
    let position = 48;
    const filterMels = file.i32(position);
    const filterFft = file.i32(position + 4);
    if (filterMels <= 0 || filterFft <= 0) throw invalid("bad mel filters");
    position += 8 + filterMels * filterFft * 4;
    const vocabCount = file.i32(position);
    if (vocabCount < 0 || vocabCount > nVocab) throw invalid("bad vocabulary size");
    position += 4;
    for (let i = 0; i < vocabCount; i++) position += 4 + file.bytes(position, 4).readUInt32LE(0);
    let tensors = 0;
    while (position < size) {
      const nDims = file.i32(position);
      const nameLength = file.i32(position + 4);
      const type = file.i32(position + 8);
      if (nDims < 1 || nDims > 4 || nameLength <= 0 || nameLength > 256) throw invalid(`bad tensor header at byte ${position}`);
      position += 12;
      let elements = 1;
      for (let d = 0; d < nDims; d++) elements *= file.i32(position + d * 4);
      position += nDims * 4 + nameLength;
      const layout = GGML_TYPES[type];
      if (!layout) return { nMels, nVocab, tensors }; // a type this check does not know: leave the rest to whisper.cpp
      position += Math.ceil(elements / layout[1]) * layout[0];
      if (position > size) throw invalid(`truncated (tensor ${tensors} ends past the end of the ${size}-byte file)`);
      tensors++;
    }
    if (tensors === 0) throw invalid("no tensors");
    return { nMels, nVocab, tensors };
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw invalid((error as Error).message);
  } finally {
    closeSync(fd);
  }
}

/** Checks that a file is a whisper.cpp Silero VAD model (ggml header, model name "silero…"). */
export function checkVadModel(source: ModelSource): void {
  const model = modelFile(source);
  const { fd, size } = openModel(model, "VAD");
  try {
    const file = new FileReader(fd, size);
    const ok = size > 64 && file.bytes(0, 4).readUInt32LE(0) === GGML_MAGIC && file.bytes(8, 6).toString("latin1") === "silero";
    if (!ok) throw new EngineError("model_invalid", `The VAD model ${model.name} is not a whisper.cpp Silero VAD model.`, false);
  } finally {
    closeSync(fd);
  }
}
