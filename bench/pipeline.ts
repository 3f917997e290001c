#!/usr/bin/env bun
/**
 * Speed and memory of the processing pipeline with the configured models, per recording:
 * the wall time of each stage (decode, transcribe = VAD + whisper, diarize, report), the
 * real-time factor, peak RSS, and the same recording through the raw whisper binding alone
 * (smart-whisper's whisper_full on the whole file, same model, threads and decoding options),
 * as a ratio. Then the same recording through the running service (upload to completed), for
 * what the API, the scheduler and the worker process add.
 *
 *   bun bench/pipeline.ts [--threads 2] [--minutes 30] [--skip-long] [--skip-service] [--skip-raw]
 *                         [--models-dir models] [--whisper-model whisper/ggml-tiny-random.bin]
 *                         [AUDIO ...]
 *
 * With no AUDIO it uses the shared fixtures and a --minutes long recording made by concatenating
 * them with ffmpeg. Each measurement runs in a fresh child process, so peak RSS (VmHWM) is that
 * recording's alone. Speed is reported, never asserted.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { BuiltinEngineSettings } from "../src/engines/builtin.ts";
import { STAND_IN_MODELS as DEFAULT_MODELS } from "../src/models/selection.ts";
import { createSherpaDiarizer, DEFAULT_CLUSTERING_THRESHOLD } from "../src/engines/diarization/index.ts";
import { createLlamaReporter } from "../src/engines/llm/index.ts";
import { decodeToWav } from "../src/engines/ffmpeg.ts";
import { createWhisperTranscriber, DEFAULT_DECODING } from "../src/engines/whisper/index.ts";
import { loadSmartWhisper, smartWhisperParams } from "../src/engines/whisper/backends/smart-whisper.ts";
import { readWavInt16, toFloat32 } from "../src/engines/wav.ts";
import { attributeSpeakers } from "../src/worker/attribute.ts";
import { spawnServer } from "../test/helpers/spawn-server.ts";

const ROOT = join(import.meta.dir, "..");
const FIXTURES = join(ROOT, "..", "shared", "fixtures");

interface Options {
  threads: number;
  minutes: number;
  skipLong: boolean;
  skipService: boolean;
  skipRaw: boolean;
  /** The service on a throwaway PostgreSQL (scripts/postgres-for-tests.sh) instead of SQLite. */
  postgres: boolean;
  modelsDir: string;
  whisperModel: string;
  audio: string[];
}

const USAGE = `bun bench/pipeline.ts [options] [AUDIO ...]
  --threads N            engine threads (default: the cores)
  --minutes N            length of the long recording made from the fixtures (default 30)
  --skip-long            no long recording
  --skip-service         no run through the service (upload → completed)
  --skip-raw             no run of the raw whisper binding
  --postgres             the service on a throwaway PostgreSQL cluster (--database-url) instead of SQLite
  --models-dir DIR       models directory (default models/)
  --whisper-model NAME   whisper model inside it (default the stand-in)`;

function parseOptions(argv: string[]): Options {
  const options: Options = {
    threads: availableParallelism(),
    minutes: 30,
    skipLong: false,
    skipService: false,
    skipRaw: false,
    postgres: false,
    modelsDir: join(ROOT, "models"),
    whisperModel: DEFAULT_MODELS.whisper,
    audio: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => argv[++i] ?? fail(`${arg} needs a value`);
    if (arg === "--threads") options.threads = Number(value());
    else if (arg === "--minutes") options.minutes = Number(value());
    else if (arg === "--skip-long") options.skipLong = true;
    else if (arg === "--skip-service") options.skipService = true;
    else if (arg === "--skip-raw") options.skipRaw = true;
    else if (arg === "--postgres") options.postgres = true;
    else if (arg === "--help") {
      console.log(USAGE);
      process.exit(0);
    }
    else if (arg === "--models-dir") options.modelsDir = resolve(value());
    else if (arg === "--whisper-model") options.whisperModel = value();
    else if (arg.startsWith("--")) fail(`unknown option ${arg}`);
    else options.audio.push(resolve(arg));
  }
  return options;
}

function fail(message: string): never {
  console.error(`bench/pipeline.ts: ${message}`);
  process.exit(2);
}

/** Peak resident memory of this process so far, in MiB (Linux VmHWM). */
function peakRssMiB(pid: number | "self" = "self"): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : NaN;
}

function settings(options: Options): BuiltinEngineSettings {
  return {
    modelsDir: options.modelsDir,
    models: { ...DEFAULT_MODELS, whisper: options.whisperModel },
    threads: options.threads,
    gpu: "auto",
    whisperDecoding: {},
    diarizationThreshold: DEFAULT_CLUSTERING_THRESHOLD,
    llmContextSize: null,
    speakers: { min: null, max: null },
  };
}

const context = { progress: () => {}, signal: new AbortController().signal };

// ---------------------------------------------------------------------------------------------
// Child measurements: one recording, one fresh process, a JSON line on stdout.

interface StagesResult {
  audioSeconds: number;
  ms: { load: number; decode: number; transcribe: number; diarize: number; report: number };
  segments: number;
  speakers: number;
  /** Tokens the report's LLM wrote: the random stand-in writes more or less from one transcript to the next. */
  reportTokens: number;
  peakRssMiB: number;
  backend: string;
}

async function childStages(audio: string, options: Options): Promise<StagesResult> {
  const scratch = mkdtempSync(join(tmpdir(), "verbatim-bench-pipeline-"));
  try {
    const config = settings(options);
    const model = (name: string) => join(config.modelsDir, name);
    let t = performance.now();
    const wavPath = join(scratch, "audio.wav");
    const decoded = await decodeToWav("ffmpeg", audio, wavPath, context, { maxDurationSeconds: 36_000 });
    const decode = performance.now() - t;
    // Load the models first so that stage times are processing alone, as in a warm worker.
    t = performance.now();
    const transcriber = await createWhisperTranscriber({
      modelPath: model(config.models.whisper),
      vadModelPath: config.models.vad ? model(config.models.vad) : null,
      threads: config.threads,
      useGpu: true,
      log: () => {},
    });
    const diarizer = await createSherpaDiarizer({
      segmentationModelPath: model(config.models.segmentation),
      embeddingModelPath: model(config.models.embedding),
      threads: config.threads,
      clusteringThreshold: config.diarizationThreshold,
    });
    const reporter = await createLlamaReporter({ modelPath: model(config.models.llm), threads: config.threads, gpu: config.gpu });
    const load = performance.now() - t;
    t = performance.now();
    const transcription = await transcriber.transcribe({ wavPath, language: null }, context);
    const transcribe = performance.now() - t;
    t = performance.now();
    const turns = await diarizer.diarize({ wavPath, durationSeconds: decoded.durationSeconds, minSpeakers: null, maxSpeakers: null, solo: false }, context);
    const labelled = attributeSpeakers(transcription.segments, turns, decoded.durationSeconds);
    const diarize = performance.now() - t;
    t = performance.now();
    const written = await reporter.report({ title: null, language: transcription.language, transcript: labelled.segments }, context);
    const report = performance.now() - t;
    const result = {
      audioSeconds: decoded.durationSeconds,
      ms: { load, decode, transcribe, diarize, report },
      segments: labelled.segments.length,
      speakers: labelled.speakers.length,
      reportTokens: written.usage.completionTokens,
      peakRssMiB: peakRssMiB(),
      backend: transcriber.backend,
    };
    await transcriber.close();
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface RawResult {
  ms: number;
  segments: number;
  peakRssMiB: number;
}

/** whisper_full of smart-whisper on the whole recording: no VAD, no chunks, no guard. */
async function childRaw(wavPath: string, options: Options): Promise<RawResult> {
  const module = await loadSmartWhisper();
  if (module instanceof Error) throw module;
  const model = await module.WhisperModel.load(join(options.modelsDir, options.whisperModel), false);
  const pcm = toFloat32(readWavInt16(wavPath).int16);
  const params = smartWhisperParams(null, options.threads, { ...DEFAULT_DECODING });
  const t = performance.now();
  const segments = await new Promise<unknown[]>((done, failed) =>
    module.binding.transcribe(model.handle, pcm, params, (out) => (out instanceof Error || !Array.isArray(out) ? failed(out) : done(out)), () => {}),
  );
  const ms = performance.now() - t;
  await model.free();
  return { ms, segments: segments.length, peakRssMiB: peakRssMiB() };
}

async function runChild<T>(kind: "stages" | "raw", audio: string, args: string[]): Promise<T> {
  const proc = Bun.spawn([process.execPath, import.meta.path, "--child", kind, audio, ...args], { stdout: "pipe", stderr: "pipe", cwd: ROOT });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const line = stdout.trim().split("\n").at(-1) ?? "";
  if (code !== 0 || !line.startsWith("{")) throw new Error(`${kind} on ${audio} failed (exit ${code}):\n${stderr.split("\n").slice(-15).join("\n")}`);
  return JSON.parse(line) as T;
}

/** The raw binding reads the same 16 kHz WAV the pipeline decoded: decode it once here too. */
async function rawBinding(audio: string, scratch: string, childArgs: string[]): Promise<RawResult> {
  const wav = join(scratch, `${basename(audio)}.raw.wav`);
  await decodeToWav("ffmpeg", audio, wav, context, { maxDurationSeconds: 36_000 });
  return runChild<RawResult>("raw", wav, childArgs);
}

// ---------------------------------------------------------------------------------------------
// Through the service: upload, poll, and the worker's peak RSS sampled from /proc.

interface ServiceResult {
  wallMs: number;
  stageMs: Record<string, number>;
  /** job.usage.completion_tokens: what the report's LLM wrote. */
  reportTokens: number;
  workerPeakRssMiB: number;
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** What the service said of its worker: "worker <pid> ready in <s> s (engines loaded)", when it says it. */
const WORKER_READY = /^worker \d+ ready in ([\d.]+) s/;

/** A throwaway PostgreSQL cluster for --postgres: its URL, and how to stop it. */
function startPostgres(): { url: string; stop(): void } {
  const dir = `/tmp/verbatim-pg-bench-${process.pid}`;
  const script = join(ROOT, "scripts/postgres-for-tests.sh");
  const started = Bun.spawnSync(["bash", script, "start", dir], { stderr: "inherit" });
  if (started.exitCode !== 0) fail("could not start PostgreSQL (scripts/postgres-for-tests.sh)");
  return { url: started.stdout.toString().trim(), stop: () => void Bun.spawnSync(["bash", script, "stop", dir]) };
}

async function throughService(audios: string[], options: Options): Promise<{ results: Map<string, ServiceResult>; workerReady: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-bench-service-"));
  const postgres = options.postgres ? startPostgres() : undefined;
  let workerReady = "not announced (a worker started on the first step)";
  const spawned = performance.now();
  const service = await spawnServer({
    command: [process.execPath, join(ROOT, "src/main.ts"), "serve", "--port", "0", "--data-dir", dataDir, "--models-dir", options.modelsDir, "--whisper-model", options.whisperModel, "--threads", String(options.threads), "--rate-limits", "pro=100000,anonymous=100000", ...(postgres ? ["--database-url", postgres.url] : [])],
    cwd: ROOT,
    // Its output is read all along (a full pipe would stall the server) but only the last lines are kept.
    maxLines: 200,
    timeoutMs: 60_000,
    onLine: (line) => {
      const ready = WORKER_READY.exec(line);
      if (ready) workerReady = `${ready[1]} s after its start, ${s(performance.now() - spawned)} after the service's`;
    },
  }).catch((error: Error) => {
    rmSync(dataDir, { recursive: true, force: true });
    postgres?.stop();
    throw error;
  });
  const { url, proc: server } = service;
  const results = new Map<string, ServiceResult>();
  try {
    const key = service.stdout.map((line) => /(vb_live_\w+)/.exec(line)?.[1]).find(Boolean);
    if (!key) throw new Error(`server printed no bootstrap API key:\n${service.stdout.join("\n")}`);
    const headers = { Authorization: `Bearer ${key}` };
    for (const audio of audios) {
      const form = new FormData();
      form.append("file", Bun.file(audio), basename(audio));
      const started = performance.now();
      const created = (await (await fetch(`${url}/api/v1/meetings`, { method: "POST", headers, body: form })).json()) as any;
      const stageMs: Record<string, number> = {};
      let stage = "queued";
      let stageStart = started;
      let workerPeak = 0;
      let reportTokens = 0;
      for (;;) {
        for (const pid of childPids(server.pid)) workerPeak = Math.max(workerPeak, peakRssMiB(pid) || 0);
        const job = (await (await fetch(`${url}/api/v1/jobs/${created.job.id}`, { headers })).json()) as any;
        if (job.stage !== stage) {
          stageMs[stage] = performance.now() - stageStart;
          [stage, stageStart] = [job.stage, performance.now()];
        }
        if (["completed", "failed", "canceled"].includes(job.status)) {
          if (job.status !== "completed") throw new Error(`service job for ${audio} ${job.status}: ${JSON.stringify(job.error)}`);
          reportTokens = job.usage?.completion_tokens ?? 0;
          break;
        }
        await Bun.sleep(100);
      }
      results.set(audio, { wallMs: performance.now() - started, stageMs, reportTokens, workerPeakRssMiB: workerPeak });
    }
  } finally {
    server.kill("SIGTERM");
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
    postgres?.stop();
  }
  return { results, workerReady };
}

// ---------------------------------------------------------------------------------------------

async function longRecording(minutes: number, dir: string): Promise<string> {
  const out = join(dir, `meeting-${minutes}min.wav`);
  const inputs = [join(FIXTURES, "meeting-en-3spk.wav"), join(FIXTURES, "meeting-fr-2spk.wav")];
  const list = join(dir, "list.txt");
  const repeats = Math.ceil((minutes * 60) / 94);
  await Bun.write(list, Array.from({ length: repeats }, () => inputs.map((f) => `file '${f}'`).join("\n")).join("\n"));
  const proc = Bun.spawn(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-t", String(minutes * 60), "-c", "copy", out]);
  if ((await proc.exited) !== 0) throw new Error("ffmpeg could not concatenate the fixtures");
  return out;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "--child") {
    const [, kind, audio, ...rest] = argv;
    const options = parseOptions(rest);
    const result = kind === "raw" ? await childRaw(audio!, options) : await childStages(audio!, options);
    console.log(JSON.stringify(result));
    process.exit(0);
  }
  const options = parseOptions(argv);
  const scratch = mkdtempSync(join(tmpdir(), "verbatim-bench-long-"));
  const audios = options.audio.length ? options.audio : [join(FIXTURES, "meeting-en-3spk.wav"), join(FIXTURES, "meeting-fr-2spk.wav")];
  if (!options.audio.length && !options.skipLong) audios.push(await longRecording(options.minutes, scratch));
  for (const audio of audios) if (!existsSync(audio)) fail(`${audio} does not exist`);
  const childArgs = ["--threads", String(options.threads), "--models-dir", options.modelsDir, "--whisper-model", options.whisperModel];

  console.log(`bench/pipeline.ts: ${cpus()[0]?.model ?? "CPU"}, ${availableParallelism()} cores, threads ${options.threads}, whisper ${options.whisperModel}, ${new Date().toISOString()}`);
  const rows: string[] = [];
  const stagesByAudio = new Map<string, StagesResult>();
  for (const audio of audios) {
    const stages = await runChild<StagesResult>("stages", audio, childArgs);
    stagesByAudio.set(audio, stages);
    const raw = options.skipRaw ? null : await rawBinding(audio, scratch, childArgs);
    const m = stages.ms;
    const speech = m.transcribe + m.diarize;
    rows.push(
      `| ${basename(audio)} | ${s(stages.audioSeconds * 1000)} | ${s(m.load)} | ${s(m.decode)} | ${s(m.transcribe)} | ${s(m.diarize)} | ${s(m.report)} (${stages.reportTokens}) | ` +
        `${(stages.audioSeconds / (speech / 1000)).toFixed(1)}× | ${((m.decode + speech + m.report) / 1000 / stages.audioSeconds).toFixed(3)} | ` +
        `${stages.peakRssMiB.toFixed(0)} MiB | ${raw ? `${s(raw.ms)} (${raw.peakRssMiB.toFixed(0)} MiB)` : "–"} | ${raw ? `${(m.transcribe / raw.ms).toFixed(2)}×` : "–"} | ${stages.speakers} |`,
    );
    console.error(`${basename(audio)} done (${stages.backend})`);
  }
  console.log("\nIn-process stages (models loaded once, as in a warm worker); raw = whisper_full on the whole file, same model and options:\n");
  console.log("| recording | audio | load | decode | transcribe (VAD + whisper) | diarize | report (tokens written) | transcribe + diarize speed | RTF all stages | peak RSS | raw binding (peak RSS) | transcribe / raw | speakers |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);

  if (!options.skipService) {
    const { results: service, workerReady } = await throughService(audios, options);
    console.log(`\nThrough the service on ${options.postgres ? "PostgreSQL" : "SQLite"} (upload → completed, the first upload as soon as it listens; worker ready: ${workerReady}):\n`);
    console.log("| recording | audio | wall | transcribing stage | summarizing stage (tokens written) | RTF | worker peak RSS | wall / in-process stages |");
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const [audio, r] of service) {
      const stages = stagesByAudio.get(audio)!;
      const inProcess = stages.ms.decode + stages.ms.transcribe + stages.ms.diarize + stages.ms.report;
      console.log(
        `| ${basename(audio)} | ${s(stages.audioSeconds * 1000)} | ${s(r.wallMs)} | ${s(r.stageMs.transcribing ?? 0)} | ${s(r.stageMs.summarizing ?? 0)} (${r.reportTokens}) | ` +
          `${(r.wallMs / 1000 / stages.audioSeconds).toFixed(3)} | ${r.workerPeakRssMiB.toFixed(0)} MiB | ${(r.wallMs / inProcess).toFixed(2)}× |`,
      );
    }
  }
  rmSync(scratch, { recursive: true, force: true });
}

await main();
