import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeToWav, formatDuration, remuxJoinedWebm, silenceAudio, silenceFilter, silenceSpans } from "./ffmpeg.ts";
import { DIGITAL_SILENCE_DB, levelOf, writeTone } from "../../test/support/audio-level.ts";
import { probeMedia } from "./media-probe.ts";
import { EngineError } from "./types.ts";

const fixture = join(import.meta.dir, "../../../shared/fixtures/meeting-fr-2spk.wav");
const LIMIT = { maxDurationSeconds: 36_000 };
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
    const decoded = await decodeToWav("ffmpeg", fixture, out, ctx, LIMIT);
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
    const decoded = await decodeToWav("ffmpeg", mp3, join(dir, "fr-from-mp3.wav"), context().ctx, LIMIT);
    expect(Math.abs(decoded.durationSeconds - 29)).toBeLessThan(1);
  });

  test("a file that is not audio fails with unsupported_media and leaves no output", async () => {
    const junk = join(dir, "notes.mp3");
    writeFileSync(junk, crypto.getRandomValues(new Uint8Array(50_000)));
    const out = join(dir, "junk.wav");
    const error = await decodeToWav("ffmpeg", junk, out, context().ctx, LIMIT).catch((e) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(["unsupported_media", "no_audio"]).toContain(error.code);
    expect(error.retryable).toBe(false);
    expect(existsSync(out) || existsSync(`${out}.part`)).toBe(false);
  });

  test("an aborted decode stops ffmpeg and reports canceled", async () => {
    const controller = new AbortController();
    controller.abort();
    const started = performance.now();
    const error = await decodeToWav("ffmpeg", fixture, join(dir, "aborted.wav"), context(controller.signal).ctx, LIMIT).catch((e) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error.code).toBe("canceled");
    expect(existsSync(join(dir, "aborted.wav"))).toBe(false);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test("an HLS playlist or an ffconcat list naming another file is refused, whatever its name", async () => {
    const victim = join(dir, "victim-recording");
    Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-i", fixture, "-c:a", "libmp3lame", "-f", "mp3", victim]);
    expect(existsSync(victim)).toBe(true);
    const lists = {
      "playlist.mp3": `#EXTM3U\n#EXT-X-TARGETDURATION:30\n#EXTINF:30,\n${victim}\n#EXT-X-ENDLIST\n`,
      "list.wav": `ffconcat version 1.0\nfile '${victim}'\n`,
      recording: `#EXTM3U\n#EXTINF:30,\nfile://${victim}\n`,
    };
    for (const [name, text] of Object.entries(lists)) {
      const path = join(dir, name);
      writeFileSync(path, text);
      const logged: string[] = [];
      const out = join(dir, `${name}.out.wav`);
      const error = await decodeToWav("ffmpeg", path, out, context().ctx, { ...LIMIT, log: (l) => logged.push(l) }).catch((e) => e);
      expect(error).toBeInstanceOf(EngineError);
      expect(error.code).toBe("unsupported_media");
      expect(error.message).toBe("The file is not a recording ffmpeg can decode.");
      expect(error.message).not.toContain(dir);
      expect(existsSync(out)).toBe(false);
      expect(logged.length).toBeGreaterThan(0); // the raw reason goes to the operator's log
    }
  });

  test("a container is found by content, not by name: a FLAC stored under the neutral name decodes", async () => {
    const flac = join(dir, "recording");
    expect(Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-i", fixture, "-c:a", "flac", "-f", "flac", flac]).exitCode).toBe(0);
    const decoded = await decodeToWav("ffmpeg", flac, join(dir, "from-flac.wav"), context().ctx, LIMIT);
    expect(Math.abs(decoded.durationSeconds - 28.6)).toBeLessThan(0.5);
  });

  test("a recording announced longer than the limit fails at once with recording_too_long", async () => {
    const out = join(dir, "long.wav");
    const started = performance.now();
    const error = await decodeToWav("ffmpeg", fixture, out, context().ctx, { maxDurationSeconds: 10 }).catch((e) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error.code).toBe("recording_too_long");
    expect(error.message).toBe("The recording is longer than the limit of 10 s.");
    expect(existsSync(out) || existsSync(`${out}.part`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test("a header that understates the length cannot get more than the limit decoded", async () => {
    // A 30 s FLAC whose STREAMINFO claims 1 s: the probe believes the header, the -t bound does not.
    const flac = join(dir, "lying.flac");
    expect(Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=30:sample_rate=16000", "-c:a", "flac", flac]).exitCode).toBe(0);
    const bytes = new Uint8Array(await Bun.file(flac).arrayBuffer());
    const claimed = 16_000; // samples: 1 s
    bytes[21] = (bytes[21]! & 0xf0) | 0; // high 4 bits of the 36-bit total-samples field
    new DataView(bytes.buffer).setUint32(22, claimed);
    writeFileSync(flac, bytes);
    const out = join(dir, "lying.wav");
    const error = await decodeToWav("ffmpeg", flac, out, context().ctx, { maxDurationSeconds: 5 }).catch((e) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(error.code).toBe("recording_too_long");
    expect(existsSync(out) || existsSync(`${out}.part`)).toBe(false);
    // Under a larger limit the same file decodes whole: the header only lied about the length.
    const whole = await decodeToWav("ffmpeg", flac, out, context().ctx, { maxDurationSeconds: 60 });
    expect(Math.round(whole.durationSeconds)).toBe(30);
  });

  test("durations read as people write them", () => {
    expect(formatDuration(36_000)).toBe("10 h");
    expect(formatDuration(5400)).toBe("1 h 30 min");
    expect(formatDuration(90)).toBe("1 min 30 s");
  });
});

describe("remuxJoinedWebm (real ffmpeg)", () => {
  // The Cues element: the index a player seeks with. A live recorder cannot write it.
  const hasCues = async (path: string) => Buffer.from(await Bun.file(path).bytes()).includes(Buffer.from([0x1c, 0x53, 0xbb, 0x6b]));

  test("a WebM written as a stream (as MediaRecorder's joined parts are) gets its cues and duration; other containers are left alone", async () => {
    const streamed = join(dir, "streamed.webm");
    // Written to a pipe, as a live recorder does: no cues to seek with.
    const made = Bun.spawnSync(["sh", "-c", `ffmpeg -v error -i '${fixture}' -t 6 -c:a libopus -f webm pipe:1 > '${streamed}'`]);
    expect(made.exitCode).toBe(0);
    expect(await hasCues(streamed)).toBe(false);
    const remuxed = join(dir, "remuxed.webm");
    expect(await remuxJoinedWebm("ffmpeg", streamed, remuxed, context().ctx)).toBe(true);
    expect(await hasCues(remuxed)).toBe(true);
    const after = await probeMedia("ffmpeg", remuxed);
    expect(after.durationSeconds).toBeGreaterThan(5.5);
    expect(after.durationSeconds).toBeLessThan(6.5);
    const wavCopy = join(dir, "untouched.wav");
    writeFileSync(wavCopy, await Bun.file(fixture).bytes());
    const before = await Bun.file(wavCopy).bytes();
    const notWritten = join(dir, "not-written.webm");
    expect(await remuxJoinedWebm("ffmpeg", wavCopy, notWritten, context().ctx)).toBe(false);
    expect(existsSync(notWritten)).toBe(false);
    expect(Buffer.from(await Bun.file(wavCopy).bytes()).equals(Buffer.from(before))).toBe(true);
  });
});

describe("silenceAudio (real ffmpeg)", () => {
  test("mutes each span, padded, to digital silence and leaves the rest at its level", async () => {
    const tone = join(dir, "tone.wav");
    writeTone(tone, 6, 44_100);
    const out = join(dir, "tone-silenced.flac");
    await silenceAudio("ffmpeg", tone, out, [{ start: 1, end: 1.5 }, { start: 3, end: 3.2 }], context().ctx, { format: "flac" });
    expect(new TextDecoder().decode(new Uint8Array(await Bun.file(out).slice(0, 4).arrayBuffer()))).toBe("fLaC");
    const original = levelOf(tone, 0, 0.7).meanDb;
    for (const [start, end] of [[0.86, 1.64], [2.86, 3.34]] as const) expect(levelOf(out, start, end).maxDb).toBeLessThanOrEqual(DIGITAL_SILENCE_DB);
    for (const [start, end] of [[0, 0.8], [1.7, 2.8], [3.4, 6]] as const) expect(Math.abs(levelOf(out, start, end).meanDb - original)).toBeLessThan(1);
    expect(existsSync(`${out}.part`)).toBe(false);
  });

  test("writes the 16 kHz mono WAV the engines read when asked", async () => {
    const tone = join(dir, "tone-stereo.wav");
    writeTone(tone, 2, 48_000);
    const out = join(dir, "tone-silenced.wav");
    await silenceAudio("ffmpeg", tone, out, [{ start: 0.5, end: 1 }], context().ctx, { format: "wav" });
    const header = new DataView(new Uint8Array(await Bun.file(out).slice(0, 44).arrayBuffer()).buffer);
    expect(header.getUint32(24, true)).toBe(16_000);
    expect(levelOf(out, 0.4, 1.1).maxDb).toBeLessThanOrEqual(DIGITAL_SILENCE_DB);
  });

  test("a file that is not audio fails with unsupported_media and leaves no output", async () => {
    const junk = join(dir, "junk-to-silence");
    writeFileSync(junk, crypto.getRandomValues(new Uint8Array(20_000)));
    const out = join(dir, "junk-silenced.flac");
    const error = await silenceAudio("ffmpeg", junk, out, [{ start: 0, end: 1 }], context().ctx, { format: "flac" }).catch((e) => e);
    expect(error).toBeInstanceOf(EngineError);
    expect(existsSync(out) || existsSync(`${out}.part`)).toBe(false);
  });
});

describe("silenceSpans", () => {
  test("pads each span, clamps at zero, and merges spans that touch or overlap once padded", () => {
    const spans = silenceSpans([{ start: 2, end: 2.5 }, { start: 0.1, end: 0.3 }, { start: 2.7, end: 3 }], 0.15);
    expect(spans.map((s) => [s.start, s.end].map((v) => Math.round(v * 1000) / 1000))).toEqual([
      [0, 0.45],
      [1.85, 3.15],
    ]);
  });

  test("drops spans that are not finite or end before they start", () => {
    expect(silenceSpans([{ start: Number.NaN, end: 1 }, { start: 2, end: 1 }, { start: 5, end: Infinity }], 0.1)).toEqual([]);
  });

  test("bounds the filter: past the maximum, the nearest spans merge and nothing silenced is lost", () => {
    const spans = Array.from({ length: 50 }, (_, i) => ({ start: i * 2 + (i % 5 === 0 ? 0.5 : 0), end: i * 2 + 1 }));
    const merged = silenceSpans(spans, 0, 10);
    expect(merged.length).toBe(10);
    for (const span of spans) expect(merged.some((m) => m.start <= span.start && m.end >= span.end)).toBe(true);
    expect(silenceFilter(merged).match(/between/g)!.length).toBe(10);
  });
});
