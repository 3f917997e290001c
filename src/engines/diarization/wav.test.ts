import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineError } from "../types.ts";
import { wavBytes } from "../testing.ts";
import { FIXTURES } from "./test-support.ts";
import { readPcm16MonoWav } from "./wav.ts";

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

describe("readPcm16MonoWav", () => {
  test("reads samples as floats in [-1, 1), past a LIST chunk", () => {
    expect([...readPcm16MonoWav(wav([0, 16384, -32768, 32767], { list: true }))]).toEqual([0, 0.5, -1, 32767 / 32768]);
  });

  test("a data size of 0xFFFFFFFF or past the end means: to the end of the file", () => {
    expect(readPcm16MonoWav(wav([1, 2, 3], { dataSize: 0xffffffff })).length).toBe(3);
    expect(readPcm16MonoWav(wav([1, 2, 3], { dataSize: 1000 })).length).toBe(3);
  });

  test("the shared fixtures (one with an ffmpeg LIST chunk) read to their full length", () => {
    expect(readPcm16MonoWav(join(FIXTURES, "meeting-fr-2spk.wav")).length).toBe((914172 - 44) / 2);
    expect(readPcm16MonoWav(join(FIXTURES, "real/pyannote_sample.wav")).length).toBe(480000);
  });

  test("anything but 16 kHz mono 16-bit PCM is refused clearly", () => {
    expect(code(() => readPcm16MonoWav(wav([1], { rate: 44100 })))).toBe("audio_invalid");
    expect(code(() => readPcm16MonoWav(wav([1, 2], { channels: 2 })))).toBe("audio_invalid");
    expect(code(() => readPcm16MonoWav(wav([1], { bits: 8 })))).toBe("audio_invalid");
    const text = join(dir, "text.wav");
    writeFileSync(text, "not a wave file at all");
    expect(code(() => readPcm16MonoWav(text))).toBe("audio_invalid");
    expect(code(() => readPcm16MonoWav(join(dir, "absent.wav")))).toBe("audio_missing");
  });
});
