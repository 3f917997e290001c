import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { EngineError } from "../types.ts";

export const DIARIZATION_SAMPLE_RATE = 16_000;

const CHUNK_BYTES = 1 << 20;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reads a 16 kHz mono 16-bit PCM WAV (what the decode step writes) as samples in [-1, 1).
 * Walks the RIFF chunks rather than assuming a 44-byte header, so a LIST chunk before the data
 * is fine; a data size of 0 or 0xFFFFFFFF (written by a streaming encoder) means "to the end of
 * the file". Reads in 1 MiB pieces straight into the result: the peak memory is the samples.
 */
export function readPcm16MonoWav(path: string): Float32Array {
  const invalid = (why: string) => new EngineError("audio_invalid", `The decoded audio is not usable: ${why}.`, false, { detail: path });
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
        if (format.audioFormat !== 1 || format.bitsPerSample !== 16 || format.channels !== 1 || format.sampleRate !== DIARIZATION_SAMPLE_RATE) {
          throw invalid(
            `expected 16-bit PCM mono at ${DIARIZATION_SAMPLE_RATE} Hz, found format ${format.audioFormat}, ` +
              `${format.bitsPerSample}-bit, ${format.channels} channel(s) at ${format.sampleRate} Hz`,
          );
        }
        const available = fileSize - body;
        const bytes = size === 0 || size === 0xffffffff || size > available ? available : size;
        return readSamples(fd, body, Math.floor(bytes / 2));
      }
      offset = body + size + (size & 1);
    }
    throw invalid(format ? "it has no data chunk" : "it has no fmt chunk");
  } finally {
    closeSync(fd);
  }
}

function readSamples(fd: number, position: number, count: number): Float32Array {
  const samples = new Float32Array(count);
  const bytes = new Uint8Array(Math.min(CHUNK_BYTES, count * 2));
  const view = new DataView(bytes.buffer);
  const native = new Int16Array(bytes.buffer);
  let done = 0;
  while (done < count) {
    const got = readSync(fd, bytes, 0, Math.min(bytes.length, (count - done) * 2), position + done * 2);
    if (got <= 0) break;
    const n = got >> 1;
    if (LITTLE_ENDIAN) for (let i = 0; i < n; i++) samples[done + i] = native[i]! / 32768;
    else for (let i = 0; i < n; i++) samples[done + i] = view.getInt16(i * 2, true) / 32768;
    done += n;
  }
  return done === count ? samples : samples.subarray(0, done);
}
