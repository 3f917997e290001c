import { readFileSync } from "node:fs";
import { EngineError } from "../types.ts";

export const SAMPLE_RATE = 16_000;

export interface Pcm16 {
  /** The samples as 16-bit integers (what the VAD binding takes). */
  int16: Int16Array;
  durationSeconds: number;
}

/**
 * Reads the 16 kHz mono 16-bit PCM WAV the decode step writes. Chunks are walked rather than
 * assuming a 44-byte header, and a data size left unset by a streaming writer (0 or 0xFFFFFFFF)
 * means "to the end of the file".
 */
export function readPcm16Wav(path: string): Pcm16 {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new EngineError("audio_unreadable", "The decoded audio cannot be read.", false, { detail: (error as Error).message });
  }
  const bad = (why: string) => new EngineError("audio_invalid", `The decoded audio is not 16 kHz mono 16-bit WAV: ${why}.`, false);
  if (bytes.length < 12 || bytes.toString("ascii", 0, 4) !== "RIFF" || bytes.toString("ascii", 8, 12) !== "WAVE") throw bad("no RIFF/WAVE header");
  let offset = 12;
  let format: { tag: number; channels: number; rate: number; bits: number } | null = null;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt " && size >= 16 && body + 16 <= bytes.length) {
      format = {
        tag: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        rate: bytes.readUInt32LE(body + 4),
        bits: bytes.readUInt16LE(body + 14),
      };
    } else if (id === "data") {
      if (!format) throw bad("data before fmt");
      // WAVE_FORMAT_PCM (1) or WAVE_FORMAT_EXTENSIBLE (0xFFFE) carrying PCM.
      if ((format.tag !== 1 && format.tag !== 0xfffe) || format.channels !== 1 || format.rate !== SAMPLE_RATE || format.bits !== 16) {
        throw bad(`format ${format.tag}, ${format.channels} channel(s), ${format.rate} Hz, ${format.bits} bits`);
      }
      const available = bytes.length - body;
      const length = size === 0 || size === 0xffffffff || size > available ? available : size;
      const count = Math.floor(length / 2);
      // Copy into an aligned buffer of its own: the file's data offset need not be even.
      const int16 = new Int16Array(count);
      new Uint8Array(int16.buffer).set(bytes.subarray(body, body + count * 2));
      return { int16, durationSeconds: count / SAMPLE_RATE };
    }
    offset = body + size + (size & 1);
  }
  throw bad("no data chunk");
}

/** Float samples in [-1, 1) for a range of 16-bit samples. */
export function toFloat32(int16: Int16Array, from = 0, to = int16.length): Float32Array {
  const out = new Float32Array(Math.max(0, to - from));
  for (let i = 0; i < out.length; i++) out[i] = int16[from + i]! / 32768;
  return out;
}
