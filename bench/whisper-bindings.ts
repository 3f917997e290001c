/**
 * Measures whisper.cpp bindings on the shared tiny-architecture model (docs/engines/whisper.md).
 * Candidates other than @fugood are installed in a scratch folder, never in the project:
 *
 *   bun bench/whisper-bindings.ts fugood-bench                    # bench(2): encodeMs
 *   bun bench/whisper-bindings.ts fugood window|whole
 *   bun bench/whisper-bindings.ts smart DIR window|window-free|whole   # DIR/node_modules/smart-whisper
 *   LD_PRELOAD=libstdc++.so.6 bun bench/whisper-bindings.ts napirs DIR window|window-free|whole
 *   bun bench/whisper-bindings.ts engine WAV [LANGUAGE]           # the whole engine (VAD + chunks)
 *
 * window: the first 30 s with decoding bounded to one token and one segment (≈ one encode);
 * window-free: the first 30 s, greedy, unbounded; whole: the 65.7 s file, greedy, no fallback,
 * maxContext 0, language en. THREADS (default 2) sets the threads. Prints one JSON line.
 */
import { join, resolve } from "node:path";
import { readWavInt16, toFloat32 } from "../src/engines/wav.ts";

const ROOT = resolve(import.meta.dir, "..");
const MODEL = join(ROOT, "models/whisper/ggml-tiny-random.bin");
const VAD = join(ROOT, "models/whisper/ggml-silero-v6.2.0.bin");
const WAV = resolve(ROOT, "../shared/fixtures/meeting-en-3spk.wav");
const threads = Number(process.env.THREADS ?? 2);
const [kind, ...args] = process.argv.slice(2);
const report = (extra: Record<string, unknown>) => console.log(JSON.stringify({ kind, args, threads, ...extra }));
/** Candidates live outside the project, so they are untyped here. */
type Loose = any;
const load = async (specifier: string): Promise<Loose> => import(specifier);

if (kind === "fugood-bench" || kind === "fugood") {
  const { initWhisper } = await import("@fugood/whisper.node");
  const ctx = await initWhisper({ filePath: MODEL, useGpu: false });
  const greedy = { language: "en", maxThreads: threads, temperature: 0, temperatureInc: 0, bestOf: 1, maxContext: 0 };
  const t = performance.now();
  if (kind === "fugood-bench") {
    const r = await ctx.bench(threads);
    report({ encodeMs: r.encodeMs, decodeMs: r.decodeMs, config: r.config });
  } else {
    const r = await ctx.transcribeFile(WAV, args[0] === "window" ? { ...greedy, duration: 30_000 } : greedy).promise;
    report({ wallMs: performance.now() - t, segments: r.segments.length });
  }
  await ctx.release();
} else if (kind === "smart") {
  const { Whisper } = await load(join(resolve(args[0]!), "node_modules/smart-whisper"));
  const pcm = toFloat32(readWavInt16(WAV).int16);
  const w = new Whisper(MODEL, { gpu: false, offload: 3600 });
  await w.load();
  const base = { n_threads: threads, language: "en", temperature: 0, temperature_inc: 0, best_of: 1, n_max_text_ctx: 0, no_context: true, format: "simple" };
  const window = pcm.subarray(0, 30 * 16_000);
  const t = performance.now();
  const task =
    args[1] === "window"
      ? await w.transcribe(window, { ...base, single_segment: true, max_tokens: 1 })
      : await w.transcribe(args[1] === "window-free" ? window : pcm, base);
  const r = await task.result;
  report({ wallMs: performance.now() - t, segments: r.length });
  await w.free();
} else if (kind === "napirs") {
  const { Whisper, WhisperFullParams, WhisperSamplingStrategy } = await load(join(resolve(args[0]!), "node_modules/@napi-rs/whisper/index.js"));
  const pcm = toFloat32(readWavInt16(WAV).int16);
  const w = new Whisper(MODEL, { useGpu: false });
  const p = new WhisperFullParams(WhisperSamplingStrategy.Greedy);
  Object.assign(p, { nThreads: threads, language: "en", temperature: 0, nMaxTextCtx: 0, noContext: true, printProgress: false, printRealtime: false });
  // @napi-rs/whisper 0.0.4 has no setter for temperature_inc or best_of: its fallback stays on.
  const t = performance.now();
  if (args[1] === "window") Object.assign(p, { singleSegment: true, maxTokens: 1 });
  w.full(p, args[1] === "whole" ? pcm : pcm.subarray(0, 30 * 16_000));
  report({ wallMs: performance.now() - t });
} else if (kind === "engine") {
  const { createWhisperTranscriber } = await import("../src/engines/whisper/index.ts");
  const t0 = performance.now();
  const transcriber = await createWhisperTranscriber({ modelPath: MODEL, vadModelPath: VAD, threads, useGpu: false, log: () => {} });
  const loadMs = performance.now() - t0;
  const t = performance.now();
  const r = await transcriber.transcribe({ wavPath: resolve(args[0] ?? WAV), language: args[1] ?? null }, { progress: () => {}, signal: new AbortController().signal });
  report({ backend: transcriber.backend, loadMs, wallMs: performance.now() - t, language: r.language, segments: r.segments.length });
  await transcriber.close();
} else {
  console.error("usage: see the comment at the top of this file");
  process.exit(2);
}
