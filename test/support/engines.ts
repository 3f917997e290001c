// Helpers for the engines' tests: WAV files built byte by byte, and EngineError expectations.
import { expect } from "bun:test";
import { EngineError } from "../../src/engines/types.ts";

export interface WavShape {
  rate?: number;
  channels?: number;
  bits?: number;
  /** The data chunk's declared size (0 or 0xFFFFFFFF as streaming writers leave it); default the real one. */
  dataSize?: number;
  /** Chunks between fmt and data, e.g. a LIST chunk. */
  extra?: Buffer;
}

/** A RIFF/WAVE file of 16-bit samples (16 kHz mono unless told), as ffmpeg writes it. */
export function wavBytes(samples: ArrayLike<number>, shape: WavShape = {}): Buffer {
  const rate = shape.rate ?? 16_000;
  const channels = shape.channels ?? 1;
  const bits = shape.bits ?? 16;
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) data.writeInt16LE(samples[i]!, i * 2);
  const fmt = Buffer.alloc(24);
  fmt.write("fmt ", 0, "latin1");
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * 2 * channels, 16);
  fmt.writeUInt16LE(2 * channels, 20);
  fmt.writeUInt16LE(bits, 22);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write("data", 0, "latin1");
  dataHeader.writeUInt32LE(shape.dataSize ?? data.length, 4);
  const body = Buffer.concat([Buffer.from("WAVE", "latin1"), fmt, shape.extra ?? Buffer.alloc(0), dataHeader, data]);
  const riff = Buffer.alloc(8);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

/** The EngineError a promise rejects with; fails the test if it resolves or rejects otherwise. */
export async function engineError(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    return error as EngineError;
  }
  throw new Error("expected an EngineError");
}
