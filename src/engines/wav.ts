import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { EngineError } from "./types.ts";

/**
 * The one reader of the WAV the decode step writes (16 kHz mono 16-bit PCM, from ffmpeg), for
 * every engine: as 16-bit integers (the VAD and whisper take those) or as floats in [-1, 1)
 * (sherpa-onnx). One header parser and one pair of error codes: audio_missing when the file
 * cannot be opened, audio_invalid when it is not that format.
 */

export const SAMPLE_RATE = 16_000;

const CHUNK_BYTES = 1 << 20;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

interface WavData {
  fd: number;
  /** Byte offset of the first sample. */
  offset: number;
  samples: number;
}

function invalid(why: string): EngineError {
  return new EngineError("audio_invalid", `The decoded audio is not usable: ${why}.`, false);
}

/**
 * Opens the file and finds its samples. Walks the RIFF chunks rather than assuming a 44-byte
 * header, so a LIST chunk before the data is fine; a data size of 0 or 0xFFFFFFFF (written by a
 * streaming encoder), or one past the end, means "to the end of the file".
 */
function openWav(path: string): WavData {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    throw new EngineError("audio_missing", "The decoded audio cannot be read.", false, { detail: (error as Error).message });
  }
  try {
    const fileSize = fstatSync(fd).size;
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) < 12 || head.toString("latin1", 0, 4) !== "RIFF" || head.toString("latin1", 8, 12) !== "WAVE") {
      throw invalid("not a RIFF/WAVE file");
    }
    let offset = 12;
    let format: { audioFormat: number; channels: number; sampleRate: number; bitsPerSample: number } | null = null;
    const chunkHeader = Buffer.alloc(8);
    while (offset + 8 <= fileSize) {
      readSync(fd, chunkHeader, 0, 8, offset);
      const id = chunkHeader.toString("latin1", 0, 4);
      const size = chunkHeader.readUInt32LE(4);
      const body = offset + 8;
      if (id === "fmt ") {
        if (size < 16) throw invalid("its fmt chunk is too short");
        const fmt = Buffer.alloc(Math.min(size, 40));
        readSync(fd, fmt, 0, fmt.length, body);
        let audioFormat = fmt.readUInt16LE(0);
        // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
        if (audioFormat === 0xfffe && fmt.length >= 26) audioFormat = fmt.readUInt16LE(24);
        format = { audioFormat, channels: fmt.readUInt16LE(2), sampleRate: fmt.readUInt32LE(4), bitsPerSample: fmt.readUInt16LE(14) };
      } else if (id === "data") {
        if (!format) throw invalid("its data chunk comes before the fmt chunk");
        if (format.audioFormat !== 1 || format.bitsPerSample !== 16 || format.channels !== 1 || format.sampleRate !== SAMPLE_RATE) {
          throw invalid(
            `expected 16-bit PCM mono at ${SAMPLE_RATE} Hz, found format ${format.audioFormat}, ` +
              `${format.bitsPerSample}-bit, ${format.channels} channel(s) at ${format.sampleRate} Hz`,
          );
        }
        const available = fileSize - body;
        const bytes = size === 0 || size === 0xffffffff || size > available ? available : size;
        return { fd, offset: body, samples: Math.floor(bytes / 2) };
      }
      offset = body + size + (size & 1);
    }
    throw invalid(format ? "it has no data chunk" : "it has no fmt chunk");
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Reads the samples in 1 MiB pieces, handing each piece (as 16-bit integers, valid only during
 * the call) to `take` with the index of its first sample. Returns the samples read.
 */
function readPieces(wav: WavData, take: (piece: Int16Array, at: number) => void): number {
  const bytes = new Uint8Array(Math.max(2, Math.min(CHUNK_BYTES, wav.samples * 2)));
  const view = new DataView(bytes.buffer);
  const native = new Int16Array(bytes.buffer);
  const swapped = LITTLE_ENDIAN ? native : new Int16Array(native.length);
  let done = 0;
  while (done < wav.samples) {
    const got = readSync(wav.fd, bytes, 0, Math.min(bytes.length, (wav.samples - done) * 2), wav.offset + done * 2);
    if (got <= 0) break;
    const n = got >> 1;
    if (!LITTLE_ENDIAN) for (let i = 0; i < n; i++) swapped[i] = view.getInt16(i * 2, true);
    take(swapped.subarray(0, n), done);
    done += n;
  }
  return done;
}

export interface Pcm16 {
  /** The samples as 16-bit integers (what the VAD and whisper bindings take). */
  int16: Int16Array;
  durationSeconds: number;
}

/** The whole recording as 16-bit samples. */
export function readWavInt16(path: string): Pcm16 {
  const wav = openWav(path);
  try {
    const int16 = new Int16Array(wav.samples);
    const done = readPieces(wav, (piece, at) => int16.set(piece, at));
    const samples = done === wav.samples ? int16 : int16.subarray(0, done);
    return { int16: samples, durationSeconds: samples.length / SAMPLE_RATE };
  } finally {
    closeSync(wav.fd);
  }
}

/**
 * The whole recording as floats in [-1, 1), converted piece by piece as it is read: the peak
 * memory is the float samples alone, never the file's bytes besides.
 */
export function readWavFloat32(path: string): Float32Array {
  const wav = openWav(path);
  try {
    const samples = new Float32Array(wav.samples);
    const done = readPieces(wav, (piece, at) => {
      for (let i = 0; i < piece.length; i++) samples[at + i] = piece[i]! / 32768;
    });
    return done === wav.samples ? samples : samples.subarray(0, done);
  } finally {
    closeSync(wav.fd);
  }
}

/** Float samples in [-1, 1) for a range of 16-bit samples. */
export function toFloat32(int16: Int16Array, from = 0, to = int16.length): Float32Array {
  const out = new Float32Array(Math.max(0, to - from));
  for (let i = 0; i < out.length; i++) out[i] = int16[from + i]! / 32768;
  return out;
}
