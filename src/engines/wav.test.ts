import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FIXTURES } from "../../test/support/diarization.ts";
import { wavBytes } from "../../test/support/engines.ts";
import { EngineError } from "./types.ts";
import { readWavFloat32, readWavInt16 } from "./wav.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-wav-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function wav(samples: number[], o: { rate?: number; channels?: number; bits?: number; dataSize?: number; list?: boolean } = {}): string {
  const extra = o.list ? Buffer.from("LIST\x05\x00\x00\x00INFOx\x00", "latin1") : undefined; // odd size, padded
  const path = join(dir, `w${Math.random().toString(36).slice(2)}.wav`);
  writeFileSync(path, wavBytes(samples, { ...o, extra }));
  return path;
}
const code = (fn: () => unknown) => {
  try {
    fn();
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError);
    return (e as EngineError).code;
  }
};

describe("readWavFloat32", () => {
  test("reads samples as floats in [-1, 1), past a LIST chunk", () => {
    expect([...readWavFloat32(wav([0, 16384, -32768, 32767], { list: true }))]).toEqual([0, 0.5, -1, 32767 / 32768]);
  });

  test("a data size of 0xFFFFFFFF or past the end means: to the end of the file", () => {
    expect(readWavFloat32(wav([1, 2, 3], { dataSize: 0xffffffff })).length).toBe(3);
    expect(readWavFloat32(wav([1, 2, 3], { dataSize: 1000 })).length).toBe(3);
  });

  test("the shared fixtures (one with an ffmpeg LIST chunk) read to their full length", () => {
    expect(readWavFloat32(join(FIXTURES, "meeting-fr-2spk.wav")).length).toBe((914172 - 44) / 2);
    expect(readWavFloat32(join(FIXTURES, "real/pyannote_sample.wav")).length).toBe(480000);
  });

  test("anything but 16 kHz mono 16-bit PCM is refused clearly", () => {
    expect(code(() => readWavFloat32(wav([1], { rate: 44100 })))).toBe("audio_invalid");
    expect(code(() => readWavFloat32(wav([1, 2], { channels: 2 })))).toBe("audio_invalid");
    expect(code(() => readWavFloat32(wav([1], { bits: 8 })))).toBe("audio_invalid");
    const text = join(dir, "text.wav");
    writeFileSync(text, "not a wave file at all");
    expect(code(() => readWavFloat32(text))).toBe("audio_invalid");
    expect(code(() => readWavFloat32(join(dir, "absent.wav")))).toBe("audio_missing");
  });
});

describe("readWavInt16", () => {
  test("walks chunks and refuses other formats", () => {
    const wavOf = (rate: number, channels: number, samples: number[], extra?: Buffer) => wavBytes(samples, { rate, channels, extra });
    const list = Buffer.concat([Buffer.from("LIST"), Buffer.from([3, 0, 0, 0]), Buffer.from("abc"), Buffer.from([0])]); // odd size, padded
    writeFileSync(join(dir, "ok.wav"), wavOf(16000, 1, [1, -2, 32767, -32768], list));
    const pcm = readWavInt16(join(dir, "ok.wav"));
    expect(Array.from(pcm.int16)).toEqual([1, -2, 32767, -32768]);
    expect(pcm.durationSeconds).toBe(4 / 16000);
    writeFileSync(join(dir, "stereo.wav"), wavOf(16000, 2, [0, 0]));
    expect(() => readWavInt16(join(dir, "stereo.wav"))).toThrow(expect.objectContaining({ code: "audio_invalid" }));
    writeFileSync(join(dir, "44k.wav"), wavOf(44100, 1, [0]));
    expect(() => readWavInt16(join(dir, "44k.wav"))).toThrow(expect.objectContaining({ code: "audio_invalid" }));
    // The same error codes as the float view: one reader.
    expect(code(() => readWavInt16(join(dir, "absent.wav")))).toBe("audio_missing");
  });

  test("both views of a fixture hold the same samples", () => {
    const path = join(FIXTURES, "real/pyannote_sample.wav");
    const int16 = readWavInt16(path).int16;
    const float = readWavFloat32(path);
    expect(int16.length).toBe(float.length);
    for (const i of [0, 1000, 123_457, int16.length - 1]) expect(float[i]).toBe(int16[i]! / 32768);
  });
});
