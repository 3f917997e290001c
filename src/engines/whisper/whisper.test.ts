/**
 * Runs the real whisper.cpp binding on the shared fixtures with the tiny-architecture model
 * whose weights are RANDOM: its text is garbage, so these tests check only what the pipeline
 * guarantees whatever whisper says — timestamps inside the recording and ordered, segments
 * only where the Silero VAD (a real, trained model) hears speech, the language handling,
 * errors, cancellation — never the words.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { EngineError, type StepContext, type TranscriptionResult } from "../types.ts";
import { createWhisperTranscriber, type WhisperTranscriber } from "./index.ts";
import { WHISPER_LANGUAGES } from "./languages.ts";
import { readWavInt16, SAMPLE_RATE } from "../wav.ts";
import { wavBytes } from "../../../test/support/engines.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const MODEL = join(ROOT, "models/whisper/ggml-tiny-random.bin");
const VAD = join(ROOT, "models/whisper/ggml-silero-v6.2.0.bin");
const FIXTURE = resolve(ROOT, "../shared/fixtures/meeting-en-3spk");
const reference = (await Bun.file(`${FIXTURE}.json`).json()) as { turns: { start: number; end: number }[] };

/** Tolerance on the reference turns: the VAD pads and the engine pads again (0.2 s). */
const TOLERANCE = 0.5;
/** With the AVX2 smart-whisper build a run takes seconds; the @fugood fallback needs ~20 s a window. */
const SLOW = 150_000;

let dir: string;
let transcriber: WhisperTranscriber;

function writeWav(path: string, samples: Int16Array): void {
  writeFileSync(path, wavBytes(samples));
}

function context(signal = new AbortController().signal): StepContext & { values: number[] } {
  const values: number[] = [];
  return { values, progress: (p) => values.push(p), signal };
}

/** 0 ≤ start < end ≤ duration, ordered without overlap, words inside their segment and ordered. */
function expectWellFormed(result: TranscriptionResult, duration: number): void {
  let previousEnd = 0;
  for (const s of result.segments) {
    expect(s.start).toBeGreaterThanOrEqual(0);
    expect(s.end).toBeGreaterThan(s.start);
    expect(s.end).toBeLessThanOrEqual(duration);
    expect(s.start).toBeGreaterThanOrEqual(previousEnd);
    expect(s.text.trim()).not.toBe("");
    previousEnd = s.end;
    let wordEnd = s.start;
    for (const w of s.words ?? []) {
      expect(w.start).toBeGreaterThanOrEqual(wordEnd);
      expect(w.end).toBeGreaterThanOrEqual(w.start);
      expect(w.end).toBeLessThanOrEqual(s.end);
      wordEnd = w.end;
    }
  }
}

function overlapsSpeech(s: { start: number; end: number }, turns: { start: number; end: number }[]): boolean {
  return turns.some((t) => s.start < t.end + TOLERANCE && s.end > t.start - TOLERANCE);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "whisper-engine-"));
  const full = readWavInt16(`${FIXTURE}.wav`).int16;
  // A 25 s excerpt: the first four turns (one chunk for whisper).
  writeWav(join(dir, "excerpt.wav"), full.slice(0, 25 * SAMPLE_RATE));
  // 8 s of silence, speaker A's first turn (0.3–7.2 s of the fixture), 8 s of silence.
  const turn = full.slice(0.3 * SAMPLE_RATE, 7.2 * SAMPLE_RATE);
  const padded = new Int16Array(16 * SAMPLE_RATE + turn.length);
  padded.set(turn, 8 * SAMPLE_RATE);
  writeWav(join(dir, "padded.wav"), padded);
  writeWav(join(dir, "silence.wav"), new Int16Array(10 * SAMPLE_RATE));
  transcriber = await createWhisperTranscriber({ modelPath: MODEL, vadModelPath: VAD, threads: 2, useGpu: false, log: () => {} });
});

afterAll(async () => {
  await transcriber?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("whisper engine on the real binding (tiny-random model)", () => {
  test(
    "detects a language; segments lie in the recording, ordered, each over reference speech",
    async () => {
      const ctx = context();
      const result = await transcriber.transcribe({ wavPath: join(dir, "excerpt.wav"), language: null }, ctx);
      expect(result.model).toBe("ggml-tiny-random");
      expect(WHISPER_LANGUAGES.has(result.language ?? "")).toBe(true);
      // Greedy decoding of speech gives some output even with random weights.
      expect(result.segments.length).toBeGreaterThan(0);
      expectWellFormed(result, 25);
      const turns = reference.turns.filter((t) => t.start < 25).map((t) => ({ start: t.start, end: Math.min(t.end, 25) }));
      for (const s of result.segments) expect(overlapsSpeech(s, turns)).toBe(true);
      // Progress runs from 0 to 1 without going back.
      expect(ctx.values[0]).toBe(0);
      expect(ctx.values.at(-1)).toBe(1);
      for (let i = 1; i < ctx.values.length; i++) expect(ctx.values[i]!).toBeGreaterThanOrEqual(ctx.values[i - 1]!);
    },
    SLOW,
  );

  test(
    "echoes a given language; nothing is placed in the silence around the speech",
    async () => {
      const result = await transcriber.transcribe({ wavPath: join(dir, "padded.wav"), language: "FR-fr" }, context());
      expect(result.language).toBe("fr");
      expectWellFormed(result, 16 + 6.9);
      // The speech lies at 8.0–14.9 s (reference turn 0.5–6.955 s moved by 7.7 s).
      for (const s of result.segments) expect(overlapsSpeech(s, [{ start: 8.2, end: 14.655 }])).toBe(true);
    },
    SLOW,
  );

  test(
    "a meeting's vocabulary reaches whisper.cpp as its initial prompt: accepted, and it changes what is decoded",
    async () => {
      const input = { wavPath: join(dir, "padded.wav"), language: "en" };
      const plain = await transcriber.transcribe(input, context());
      const prompted = await transcriber.transcribe({ ...input, prompt: "Kubernetes, Acme Widget, Dr. Nguyen" }, context());
      expectWellFormed(prompted, 16 + 6.9);
      expect(prompted.segments.length).toBeGreaterThan(0);
      // Greedy decoding is deterministic: the same recording decodes to other tokens only because
      // the prompt was read (with the default maxContext 0, whisper.cpp would ignore it: decoding.ts).
      const text = (r: TranscriptionResult) => r.segments.map((s) => s.text).join("|");
      expect(text(prompted)).not.toBe(text(plain));
      expect(text(await transcriber.transcribe(input, context()))).toBe(text(plain));
    },
    SLOW,
  );

  test("10 s of silence gives no segments and no language", async () => {
    const result = await transcriber.transcribe({ wavPath: join(dir, "silence.wav"), language: null }, context());
    expect(result.segments).toEqual([]);
    expect(result.language).toBeNull();
  });

  test("a canceled job stops before whisper runs", async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(transcriber.transcribe({ wavPath: join(dir, "excerpt.wav"), language: "en" }, context(aborted.signal))).rejects.toMatchObject({
      code: "canceled",
    });
    // Canceled while the VAD runs: no chunk reaches whisper, so progress never passes the VAD's share.
    const later = new AbortController();
    const values: number[] = [];
    const ctx: StepContext = {
      signal: later.signal,
      progress: (p) => {
        values.push(p);
        if (p > 0) later.abort();
      },
    };
    await expect(transcriber.transcribe({ wavPath: join(dir, "excerpt.wav"), language: "en" }, ctx)).rejects.toMatchObject({ code: "canceled" });
    expect(Math.max(...values)).toBeLessThanOrEqual(0.1);
  });

  test("an unknown language is refused", async () => {
    await expect(transcriber.transcribe({ wavPath: join(dir, "silence.wav"), language: "xx" }, context())).rejects.toMatchObject({
      code: "unsupported_language",
      retryable: false,
    });
  });

  test("a missing or invalid model file is an EngineError, not a crash", async () => {
    const missing = createWhisperTranscriber({ modelPath: join(dir, "nope.bin"), vadModelPath: VAD, threads: 2, useGpu: false, log: () => {} });
    await expect(missing).rejects.toBeInstanceOf(EngineError);
    await expect(missing).rejects.toMatchObject({ code: "model_missing", retryable: false });
    // The VAD model given as the whisper model: smart-whisper would crash the process on it.
    const invalid = createWhisperTranscriber({ modelPath: VAD, vadModelPath: VAD, threads: 2, useGpu: false, log: () => {} });
    await expect(invalid).rejects.toMatchObject({ code: "model_invalid", retryable: false });
    const missingVad = createWhisperTranscriber({ modelPath: MODEL, vadModelPath: join(dir, "nope-vad.bin"), threads: 2, useGpu: false, log: () => {} });
    await expect(missingVad).rejects.toMatchObject({ code: "model_missing" });
    // A file that differs from the catalogue's size or checksum.
    const wrong = createWhisperTranscriber({
      modelPath: MODEL,
      vadModelPath: VAD,
      threads: 2,
      useGpu: false,
      log: () => {},
      expectedModels: { vad: { bytes: 885098, sha256: "0".repeat(64) } },
    });
    await expect(wrong).rejects.toMatchObject({ code: "model_invalid" });
  });
});
