import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeToWav } from "./ffmpeg.ts";
import { EngineError } from "./types.ts";

const fixture = join(import.meta.dir, "../../../shared/fixtures/meeting-fr-2spk.wav");
const dir = mkdtempSync(join(tmpdir(), "verbatim-ffmpeg-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function context(signal = new AbortController().signal) {
  const progress: number[] = [];
  return { progress, ctx: { signal, progress: (f: number) => progress.push(f) } };
}

describe("decodeToWav (real ffmpeg)", () => {
  test("decodes a WAV to 16 kHz mono PCM with its duration, reporting progress up to 1", async () => {
    const { progress, ctx } = context();
    const out = join(dir, "fr.wav");
    const decoded = await decodeToWav("ffmpeg", fixture, out, ctx);
    expect(decoded.durationSeconds).toBeGreaterThan(28.5);
    expect(decoded.durationSeconds).toBeLessThan(29.5);
    const header = new Uint8Array(await Bun.file(out).slice(0, 44).arrayBuffer());
    const view = new DataView(header.buffer);
    expect(new TextDecoder().decode(header.slice(0, 4))).toBe("RIFF");
    expect(view.getUint16(22, true)).toBe(1); // mono
    expect(view.getUint32(24, true)).toBe(16000);
    expect(view.getUint16(34, true)).toBe(16); // bits per sample
    // A canonical 44-byte header (bitexact: no LIST chunk), so the data size gives the duration.
    expect(new TextDecoder().decode(header.slice(36, 40))).toBe("data");
    expect(progress.at(-1)).toBe(1);
    expect(existsSync(`${out}.part`)).toBe(false);
  });

  test("decodes a compressed container (mp3 made from the fixture) to the same duration", async () => {
    const mp3 = join(dir, "fr.mp3");
    const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-i", fixture, "-c:a", "libmp3lame", "-q:a", "6", mp3]);
    expect(made.exitCode).toBe(0);
    const decoded = await decodeToWav("ffmpeg", mp3, join(dir, "fr-from-mp3.wav"), context().ctx);
    expect(Math.abs(decoded.durationSeconds - 29)).toBeLessThan(1);
  });

  test("a file that is not audio fails with unsupported_media and leaves no output", async () => {
    const junk = join(dir, "notes.mp3");
    writeFileSync(junk, crypto.getRandomValues(new Uint8Array(50_000)));
    const out = join(dir, "junk.wav");
    const error = await decodeToWav("ffmpeg", junk, out, context().ctx).catch((e) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(["unsupported_media", "no_audio"]).toContain(error.code);
    expect(error.retryable).toBe(false);
    expect(existsSync(out) || existsSync(`${out}.part`)).toBe(false);
  });

  test("an aborted decode stops ffmpeg and reports canceled", async () => {
    const controller = new AbortController();
    controller.abort();
    const started = performance.now();
    const error = await decodeToWav("ffmpeg", fixture, join(dir, "aborted.wav"), context(controller.signal).ctx).catch((e) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error.code).toBe("canceled");
    expect(existsSync(join(dir, "aborted.wav"))).toBe(false);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
