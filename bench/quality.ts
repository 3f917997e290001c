#!/usr/bin/env bun
/**
 * Quality harness: runs a recording with a known reference through Verbatim, with whatever
 * engines and models it is configured with, and measures the result: word error rate, speaker
 * attribution (coverage and accuracy under the best speaker mapping), diarization error rate,
 * speakers found against the reference, processing time and the models used.
 *
 *   bun bench/quality.ts --audio FILE (--reference FILE.json|.txt | --rttm FILE.rttm | both)
 *                        [--server URL --key KEY | --binary dist/verbatim]
 *                        [--models-dir DIR] [--engines MODULE] [--language xx] [--json]
 *                        [-- extra serve args]
 *   bun bench/quality.ts --all-fixtures [--markdown|--json] ...
 *
 * By default it starts the service from source on a fresh temp data dir (`bun src/main.ts serve
 * --port 0`), uploads the audio as an API client would, polls the job, fetches the transcript,
 * stops the service and removes the temp dir. The metric code is in bench/quality/metrics.ts;
 * the conventions are in bench/quality/README.md.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join, resolve } from "node:path";
import { spawnServer, type SpawnedServer } from "../test/helpers/spawn-server.ts";
import {
  diarizationErrorRate,
  parseReferenceJson,
  parseRttm,
  speakerAttribution,
  wordErrorRate,
  type AttributionResult,
  type DerResult,
  type Turn,
  type WerResult,
} from "./quality/metrics.ts";

const ROOT = join(import.meta.dir, "..");
/** The shared fixtures next to the repository, used by --all-fixtures only. */
const DEFAULT_FIXTURES = join(ROOT, "..", "shared", "fixtures");
const FINAL_STATUSES = new Set(["completed", "failed", "canceled"]);

// ---------------------------------------------------------------------------------------------
// Options

interface Options {
  audio?: string;
  reference?: string;
  rttm?: string;
  allFixtures: boolean;
  fixturesDir: string;
  server?: string;
  key?: string;
  binary?: string;
  modelsDir?: string;
  engines?: string;
  language?: string;
  minSpeakers?: number;
  maxSpeakers?: number;
  oracleSpeakers: boolean;
  withReport: boolean;
  timeoutSeconds: number;
  pollSeconds: number;
  collar: number;
  skipOverlap: boolean;
  json: boolean;
  markdown: boolean;
  keepData: boolean;
  keepMeeting: boolean;
  quiet: boolean;
  serveArgs: string[];
}

const USAGE = `usage: bun bench/quality.ts --audio FILE (--reference FILE.json|FILE.txt | --rttm FILE.rttm) [options] [-- serve args]
       bun bench/quality.ts --all-fixtures [options] [-- serve args]

what to measure
  --audio FILE            the recording to upload
  --reference FILE        reference: JSON {language?, turns:[{speaker,start,end,text?}]} (or a Verbatim
                          transcript JSON), or a .txt of the words alone
  --rttm FILE             reference speaker turns (RTTM); with --reference, replaces its turns
  --all-fixtures          run the shared fixtures (meeting-en-3spk, meeting-fr-2spk, pyannote_sample)
                          and print a Markdown table
  --fixtures-dir DIR      where those are (default ../shared/fixtures next to the repository)

which service
  --server URL --key KEY  a running service (key also from VERBATIM_API_KEY); the meeting is deleted
                          afterwards unless --keep-meeting
  --binary PATH           start this executable (bun run build's dist/verbatim) instead of the source
  --models-dir DIR        --models-dir of the started service
  --engines MODULE        --engines of the started service (builtin, or a module such as
                          test/doubles/engines.ts)
  -- ARGS                 further arguments for the started service's serve command
  --keep-data             keep the started service's temp data dir (its path is printed)

how
  --language xx           language sent with the upload (default: none, the service detects it)
  --min-speakers N, --max-speakers N   speaker-count hints sent with the upload
  --oracle-speakers       send the reference's speaker count as min = max
  --with-report           run the whole pipeline, report included (default: transcribe_only)
  --timeout SECONDS       longest wait for a job (default 1800)
  --poll SECONDS          job polling interval (default 0.25, 1 with --server)
  --collar SECONDS        DER collar on each side of reference boundaries (default 0.25; 0: none)
  --skip-overlap          leave overlapped reference speech out of DER

output
  --json                  machine-readable results on stdout: {service, date, results: [...]}
  --markdown              a Markdown table (the default with --all-fixtures)
  --quiet                 no progress lines on stderr`;

function usage(message?: string): never {
  if (message) console.error(`bench/quality.ts: ${message}`);
  console.error(USAGE);
  process.exit(2);
}

const VALUE_FLAGS = new Set([
  "--audio",
  "--reference",
  "--rttm",
  "--fixtures-dir",
  "--server",
  "--key",
  "--binary",
  "--models-dir",
  "--engines",
  "--language",
  "--min-speakers",
  "--max-speakers",
  "--timeout",
  "--poll",
  "--collar",
]);
const BOOLEAN_FLAGS = new Set(["--all-fixtures", "--oracle-speakers", "--with-report", "--skip-overlap", "--json", "--markdown", "--keep-data", "--keep-meeting", "--quiet"]);

export function parseArgs(argv: string[], env: Record<string, string | undefined> = process.env): Options {
  const options: Options = {
    allFixtures: false,
    fixturesDir: DEFAULT_FIXTURES,
    oracleSpeakers: false,
    withReport: false,
    timeoutSeconds: 1800,
    pollSeconds: 0,
    collar: 0.25,
    skipOverlap: false,
    json: false,
    markdown: false,
    keepData: false,
    keepMeeting: false,
    quiet: false,
    serveArgs: [],
    key: env.VERBATIM_API_KEY || undefined,
  };
  const number = (flag: string, text: string, min: number, integer = false) => {
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
      usage(`${flag} must be ${integer ? "a whole number" : "a number"} >= ${min}, got ${JSON.stringify(text)}`);
    }
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      options.serveArgs = argv.slice(i + 1);
      break;
    }
    if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      process.exit(0);
    }
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (BOOLEAN_FLAGS.has(flag)) {
      if (inline !== undefined) usage(`${flag} takes no value`);
      const name = flag.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) as keyof Options;
      (options as unknown as Record<string, unknown>)[name] = true;
      continue;
    }
    if (!VALUE_FLAGS.has(flag)) usage(`unknown option: ${arg}`);
    const value = inline ?? argv[++i];
    if (value === undefined) usage(`${flag} needs a value`);
    switch (flag) {
      case "--audio":
        options.audio = value;
        break;
      case "--reference":
        options.reference = value;
        break;
      case "--rttm":
        options.rttm = value;
        break;
      case "--fixtures-dir":
        options.fixturesDir = value;
        break;
      case "--server":
        options.server = value.replace(/\/+$/, "");
        break;
      case "--key":
        options.key = value;
        break;
      case "--binary":
        options.binary = value;
        break;
      case "--models-dir":
        options.modelsDir = value;
        break;
      case "--engines":
        options.engines = value;
        break;
      case "--language":
        options.language = value;
        break;
      case "--min-speakers":
        options.minSpeakers = number(flag, value, 1, true);
        break;
      case "--max-speakers":
        options.maxSpeakers = number(flag, value, 1, true);
        break;
      case "--timeout":
        options.timeoutSeconds = number(flag, value, 1);
        break;
      case "--poll":
        options.pollSeconds = number(flag, value, 0.05);
        break;
      case "--collar":
        options.collar = number(flag, value, 0);
        break;
    }
  }
  if (options.allFixtures) {
    if (options.audio || options.reference || options.rttm) usage("--all-fixtures runs the fixtures: leave out --audio, --reference and --rttm");
  } else {
    if (!options.audio) usage("--audio is required (or --all-fixtures)");
    if (!options.reference && !options.rttm) usage("give --reference and/or --rttm");
  }
  if (options.server) {
    if (!/^https?:\/\//.test(options.server)) usage("--server must be an http(s) URL");
    if (!options.key) usage("--server needs --key (or VERBATIM_API_KEY)");
    if (options.binary || options.modelsDir || options.engines || options.serveArgs.length || options.keepData) {
      usage("--binary, --models-dir, --engines, --keep-data and serve arguments configure a service the harness starts: not with --server");
    }
  }
  // Quick polls on the harness's own service; one a second keeps a running one's rate limit (60+/min) clear.
  options.pollSeconds ||= options.server ? 1 : 0.25;
  if (options.json && options.markdown) usage("--json or --markdown, not both");
  if (options.oracleSpeakers && (options.minSpeakers || options.maxSpeakers)) usage("--oracle-speakers or --min/--max-speakers, not both");
  if (options.minSpeakers && options.maxSpeakers && options.minSpeakers > options.maxSpeakers) usage("--min-speakers is above --max-speakers");
  return options;
}

// ---------------------------------------------------------------------------------------------
// Cases and references

export interface Case {
  name: string;
  audio: string;
  reference?: string;
  rttm?: string;
}

interface LoadedReference {
  text: string | null;
  turns: Turn[];
  speakers: string[];
  language: string | null;
  durationSeconds: number | null;
}

export function fixtureCases(dir: string): Case[] {
  return [
    { name: "meeting-en-3spk", audio: join(dir, "meeting-en-3spk.wav"), reference: join(dir, "meeting-en-3spk.json") },
    { name: "meeting-fr-2spk", audio: join(dir, "meeting-fr-2spk.wav"), reference: join(dir, "meeting-fr-2spk.json") },
    { name: "pyannote_sample", audio: join(dir, "real", "pyannote_sample.wav"), rttm: join(dir, "real", "pyannote_sample.rttm") },
  ];
}

/** RTTM turns of the recording: all of them, or those whose file id is the audio's name when the RTTM holds several. */
function rttmTurns(path: string, audio: string): Turn[] {
  const turns = parseRttm(readFileSync(path, "utf8"));
  const files = [...new Set(turns.map((t) => t.file))];
  if (files.length <= 1) return turns;
  const id = basename(audio, extname(audio));
  const mine = turns.filter((t) => t.file === id);
  if (!mine.length) throw new Error(`${path} holds several recordings (${files.join(", ")}) and none is named ${id}`);
  return mine;
}

export function loadReference(c: Case): LoadedReference {
  const out: LoadedReference = { text: null, turns: [], speakers: [], language: null, durationSeconds: null };
  if (c.reference) {
    const raw = readFileSync(c.reference, "utf8");
    const ext = extname(c.reference).toLowerCase();
    if (ext === ".txt") {
      out.text = raw;
    } else if (ext === ".rttm") {
      out.turns = rttmTurns(c.reference, c.audio);
    } else {
      const parsed = parseReferenceJson(raw);
      Object.assign(out, { text: parsed.text, turns: parsed.turns, speakers: parsed.speakers, language: parsed.language, durationSeconds: parsed.durationSeconds });
    }
  }
  if (c.rttm) out.turns = rttmTurns(c.rttm, c.audio);
  const talking = [...new Set(out.turns.map((t) => t.speaker))];
  if (c.rttm || !out.speakers.length) out.speakers = talking;
  return out;
}

/** Seconds of a WAV file from its header (any PCM layout), or null when it is not a readable WAV. */
export function wavSeconds(path: string): number | null {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(4096);
    const got = readSync(fd, head, 0, head.length, 0);
    if (got < 12 || head.toString("ascii", 0, 4) !== "RIFF" || head.toString("ascii", 8, 12) !== "WAVE") return null;
    let byteRate = 0;
    for (let at = 12; at + 8 <= got; ) {
      const id = head.toString("ascii", at, at + 4);
      const size = head.readUInt32LE(at + 4);
      if (id === "fmt " && at + 16 <= got) byteRate = head.readUInt32LE(at + 16);
      if (id === "data") {
        if (!byteRate) return null;
        const available = statSync(path).size - (at + 8);
        const bytes = size === 0 || size === 0xffffffff ? available : Math.min(size, available);
        return bytes / byteRate;
      }
      at += 8 + size + (size % 2);
    }
    return null;
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------
// The service

interface Target {
  url: string;
  key: string;
  description: string;
  local: boolean;
  /** The started service's last output lines, for error reports. */
  tail(): string;
  stop(): Promise<void>;
}

async function startService(options: Options, say: (line: string) => void): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-quality-"));
  const command = options.binary ? [resolve(options.binary)] : [process.execPath, "--max-http-header-size=65536", join(ROOT, "src/main.ts")];
  const args = [
    "serve",
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--log-requests=false",
    // The harness polls and is the only client: no rate limit or slot limit should get in its way.
    "--rate-limits",
    "free=1000000,standard=1000000,pro=1000000,anonymous=1000000",
    "--parallel-slots",
    "free=100,standard=100,pro=100",
    ...(options.modelsDir ? ["--models-dir", resolve(options.modelsDir)] : []),
    ...(options.engines ? ["--engines", options.engines === "builtin" ? "builtin" : resolve(options.engines)] : []),
    ...options.serveArgs,
  ];
  const description = [
    options.binary ? `binary ${options.binary}` : "source (bun src/main.ts)",
    `engines ${options.engines ?? "default (builtin unless VERBATIM_ENGINES)"}`,
    `models ${options.modelsDir ?? "default (./models unless VERBATIM_MODELS_DIR)"}`,
    ...(options.serveArgs.length ? [`serve args: ${options.serveArgs.join(" ")}`] : []),
  ].join(", ");
  const output: string[] = [];
  let key = "";
  const started = spawnServer({
    command: [...command, ...args],
    cwd: ROOT,
    name: "the service",
    timeoutMs: 60_000,
    // Only the last lines matter (printed when a job does not complete); the helper keeps few of its own.
    maxLines: 40,
    onLine(line) {
      const bootstrap = /^\s+(vb_live_\w+)$/.exec(line);
      if (bootstrap) key = bootstrap[1]!;
      const kept = bootstrap ? "  vb_live_… (bootstrap key, hidden)" : line;
      output.push(kept);
      if (output.length > 200) output.shift();
      return kept;
    },
  });
  const tail = () => output.slice(-40).join("\n");
  let service: SpawnedServer;
  try {
    service = await started;
  } catch (error) {
    if (options.keepData) say(`kept the service's data dir: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const { url, proc } = service;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    proc.kill("SIGTERM");
    const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(15_000).then(() => false)]);
    if (!exited) {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    await service.drained;
    if (options.keepData) say(`kept the service's data dir: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  };
  if (!key) {
    await stop();
    throw new Error("the service printed no bootstrap API key (is the data dir fresh?)");
  }
  return { url, key, description, local: true, tail, stop };
}

class ApiFailure extends Error {}

async function api(target: Target, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${target.key}`);
  return fetch(target.url + path, { ...init, headers });
}

async function apiJson<T>(target: Target, path: string, init: RequestInit = {}, expected = [200]): Promise<T> {
  const response = await api(target, path, init);
  const text = await response.text();
  if (!expected.includes(response.status)) {
    let detail = text.slice(0, 500);
    try {
      const problem = JSON.parse(text) as { code?: string; detail?: string };
      if (problem.code) detail = `${problem.code}: ${problem.detail ?? ""}`;
    } catch {
      // not JSON: keep the text
    }
    throw new ApiFailure(`${init.method ?? "GET"} ${path} answered ${response.status}: ${detail}`);
  }
  return JSON.parse(text) as T;
}

// ---------------------------------------------------------------------------------------------
// One recording

interface Job {
  id: string;
  status: string;
  stage: string | null;
  progress: number | null;
  error: { code: string; message: string } | null;
  usage: Record<string, unknown> | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

interface Transcript {
  language: string | null;
  duration_seconds: number | null;
  model: string | null;
  speakers: string[];
  segments: { start: number; end: number; speaker: string; speaker_name: string | null; text: string }[];
  /** Verbatim's extension: the diarization turns (who speaks when), absent from other transcripts. */
  speaker_turns?: { start: number; end: number; speaker: string }[];
}

export interface CaseResult {
  name: string;
  audio: string;
  reference: string | null;
  rttm: string | null;
  /** completed: the job finished; failed / canceled / timeout: it did not; error: the harness could not run it. */
  status: "completed" | "failed" | "canceled" | "timeout" | "error";
  error: string | null;
  meetingId: string | null;
  jobId: string | null;
  models: string | null;
  usage: Record<string, unknown> | null;
  language: { reference: string | null; requested: string | null; detected: string | null };
  audioSeconds: number | null;
  timing: { wallSeconds: number | null; queuedSeconds: number | null; processingSeconds: number | null; realTimeFactor: number | null };
  speakers: { reference: number | null; found: number | null; hints: { min: number | null; max: number | null } };
  segments: number | null;
  wer: (WerResult & { normalizedAs: string | null }) | null;
  attribution: AttributionResult | null;
  der: (DerResult & { collar: number; skipOverlap: boolean }) | null;
  /** The same two scores on the transcript's speaker_turns: the diarization itself, whatever the text segmentation. */
  turns: { attribution: AttributionResult; der: DerResult } | null;
}

const seconds = (from: string | null, to: string | null) => (from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : null);

export function scoreTranscript(reference: LoadedReference, transcript: Transcript, options: Pick<Options, "collar" | "skipOverlap" | "language">) {
  const hypothesisTurns = transcript.segments.map((s) => ({ speaker: s.speaker, start: s.start, end: s.end }));
  const normalizedAs = reference.language ?? options.language ?? transcript.language ?? null;
  const wer =
    reference.text === null
      ? null
      : { ...wordErrorRate(reference.text, transcript.segments.map((s) => s.text).join(" "), { language: normalizedAs ?? undefined }), normalizedAs };
  const attribution = reference.turns.length ? speakerAttribution(reference.turns, hypothesisTurns) : null;
  const der = reference.turns.length
    ? { ...diarizationErrorRate(reference.turns, hypothesisTurns, { collar: options.collar, skipOverlap: options.skipOverlap }), collar: options.collar, skipOverlap: options.skipOverlap }
    : null;
  const diarized = transcript.speaker_turns?.length ? transcript.speaker_turns : null;
  const turns =
    diarized && reference.turns.length
      ? {
          attribution: speakerAttribution(reference.turns, diarized),
          der: diarizationErrorRate(reference.turns, diarized, { collar: options.collar, skipOverlap: options.skipOverlap }),
        }
      : null;
  const found = new Set([...transcript.segments.map((s) => s.speaker), ...(diarized ?? []).map((t) => t.speaker)]).size;
  return { wer, attribution, der, turns, found };
}

async function runCase(target: Target, c: Case, options: Options, say: (line: string) => void): Promise<CaseResult> {
  const result: CaseResult = {
    name: c.name,
    audio: c.audio,
    reference: c.reference ?? null,
    rttm: c.rttm ?? null,
    status: "error",
    error: null,
    meetingId: null,
    jobId: null,
    models: null,
    usage: null,
    language: { reference: null, requested: options.language ?? null, detected: null },
    audioSeconds: null,
    timing: { wallSeconds: null, queuedSeconds: null, processingSeconds: null, realTimeFactor: null },
    speakers: { reference: null, found: null, hints: { min: options.minSpeakers ?? null, max: options.maxSpeakers ?? null } },
    segments: null,
    wer: null,
    attribution: null,
    turns: null,
    der: null,
  };
  try {
    if (!existsSync(c.audio)) throw new Error(`no such audio file: ${c.audio}`);
    const reference = loadReference(c);
    result.language.reference = reference.language;
    result.speakers.reference = reference.turns.length ? reference.speakers.length : null;
    result.audioSeconds = reference.durationSeconds ?? wavSeconds(c.audio);
    if (options.oracleSpeakers) {
      if (!reference.turns.length) throw new Error("--oracle-speakers needs reference turns");
      result.speakers.hints = { min: reference.speakers.length, max: reference.speakers.length };
    }

    const form = new FormData();
    form.append("file", Bun.file(c.audio), basename(c.audio));
    form.append("title", `quality: ${c.name}`);
    if (!options.withReport) form.append("transcribe_only", "true");
    if (options.language) form.append("language", options.language);
    if (result.speakers.hints.min) form.append("min_speakers", String(result.speakers.hints.min));
    if (result.speakers.hints.max) form.append("max_speakers", String(result.speakers.hints.max));

    const started = performance.now();
    const created = await apiJson<{ id: string; job: Job }>(target, "/api/v1/meetings", { method: "POST", body: form }, [201, 202]);
    result.meetingId = created.id;
    result.jobId = created.job.id;
    say(`[${c.name}] uploaded: meeting ${created.id}, job ${created.job.id}`);

    const deadline = Date.now() + options.timeoutSeconds * 1000;
    let job = created.job;
    let shown = "";
    let shownAt = 0;
    while (!FINAL_STATUSES.has(job.status)) {
      if (Date.now() > deadline) break;
      await Bun.sleep(options.pollSeconds * 1000);
      job = await apiJson<Job>(target, `/api/v1/jobs/${job.id}`);
      const state = `${job.status}/${job.stage}`;
      if (state !== shown || Date.now() - shownAt > 30_000) {
        say(`[${c.name}] ${state} ${Math.round((job.progress ?? 0) * 100)} % after ${((performance.now() - started) / 1000).toFixed(1)} s`);
        [shown, shownAt] = [state, Date.now()];
      }
    }
    result.timing.wallSeconds = (performance.now() - started) / 1000;
    result.timing.queuedSeconds = seconds(job.created_at, job.started_at);
    result.timing.processingSeconds = seconds(job.started_at, job.finished_at);
    result.usage = job.usage;
    if (!FINAL_STATUSES.has(job.status)) {
      result.status = "timeout";
      result.error = `the job was still ${job.status}/${job.stage} after ${options.timeoutSeconds} s`;
    } else {
      result.status = job.status as CaseResult["status"];
      if (job.error) result.error = `${job.error.code}: ${job.error.message}`;
    }

    // A job that failed after transcription (in the report step, say) still has a transcript.
    const response = await api(target, `/api/v1/meetings/${created.id}/transcript`);
    if (response.ok) {
      const transcript = (await response.json()) as Transcript;
      result.models = transcript.model;
      result.language.detected = transcript.language;
      result.segments = transcript.segments.length;
      result.audioSeconds ??= transcript.duration_seconds;
      const scores = scoreTranscript(reference, transcript, options);
      result.wer = scores.wer;
      result.attribution = scores.attribution;
      result.der = scores.der;
      result.turns = scores.turns;
      result.speakers.found = scores.found;
    } else {
      await response.arrayBuffer();
      if (result.status === "completed") result.error = `the job completed but GET transcript answered ${response.status}`;
    }
    const processing = result.timing.processingSeconds ?? result.timing.wallSeconds;
    if (result.status === "completed" && result.audioSeconds && processing !== null) result.timing.realTimeFactor = processing / result.audioSeconds;
  } catch (error) {
    result.status = result.status === "error" || result.status === "completed" ? "error" : result.status;
    result.error = error instanceof ApiFailure || error instanceof Error ? error.message : String(error);
  } finally {
    if (result.meetingId && !target.local && !options.keepMeeting) {
      const deleted = await api(target, `/api/v1/meetings/${result.meetingId}`, { method: "DELETE" }).catch(() => null);
      await deleted?.arrayBuffer();
      if (!deleted?.ok) say(`[${c.name}] could not delete meeting ${result.meetingId} (status ${deleted?.status ?? "none"})`);
    }
  }
  if (result.status !== "completed" && target.local && !options.quiet) say(`[${c.name}] ${result.status}: ${result.error}\n--- service output (last lines) ---\n${target.tail()}\n---`);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Reports

const percent = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || Number.isNaN(x) ? "–" : `${(x * 100).toFixed(digits)} %`);
const secs = (x: number | null | undefined, digits = 1) => (x === null || x === undefined ? "–" : `${x.toFixed(digits)} s`);

export function textReport(r: CaseResult, target: string): string {
  const out = [`# Quality of ${basename(r.audio)} against ${[r.reference, r.rttm].filter(Boolean).map((p) => basename(p!)).join(" + ")}`, ""];
  const row = (label: string, value: string) => out.push(`${(label + ":").padEnd(13)}${value}`);
  row("service", target);
  row("job", `${r.status}${r.error ? ` (${r.error})` : ""}${r.jobId ? `, ${r.jobId}, meeting ${r.meetingId}` : ""}`);
  row(
    "time",
    `${secs(r.timing.wallSeconds)} wall from upload to the job's end (queued ${secs(r.timing.queuedSeconds)}, processing ${secs(r.timing.processingSeconds)}); audio ${secs(r.audioSeconds)}` +
      (r.timing.realTimeFactor !== null ? `, real-time factor ${r.timing.realTimeFactor.toFixed(3)}` : ""),
  );
  row("models", r.models ?? "–");
  if (r.usage) row("usage", JSON.stringify(r.usage));
  row("language", `reference ${r.language.reference ?? "–"}, requested ${r.language.requested ?? "auto"}, detected ${r.language.detected ?? "–"}`);
  row("segments", r.segments === null ? "– (no transcript)" : String(r.segments));
  if (r.wer) {
    const w = r.wer;
    row("WER", `${percent(w.wer, 2)} (${w.substitutions} substitutions, ${w.deletions} deletions, ${w.insertions} insertions over ${w.referenceWords} reference words; ${w.hypothesisWords} words transcribed; normalized as ${w.normalizedAs ?? "no particular language"})`);
  } else {
    row("WER", r.reference && r.segments !== null ? "– (the reference has no text)" : "–");
  }
  const hints = r.speakers.hints.min || r.speakers.hints.max ? ` (hints: min ${r.speakers.hints.min ?? "–"}, max ${r.speakers.hints.max ?? "–"})` : "";
  row("speakers", `found ${r.speakers.found ?? "–"}, reference ${r.speakers.reference ?? "–"}${hints}`);
  if (r.attribution) {
    const a = r.attribution;
    const mapping = Object.entries(a.mapping).map(([h, ref]) => `${h}→${ref ?? "(none)"}`).join(", ");
    row("attribution", `accuracy ${percent(a.accuracy)}, coverage ${percent(a.coverage)} of ${secs(a.referenceSeconds)} of reference speech; mapping ${mapping || "–"}`);
  }
  if (r.der) {
    const d = r.der;
    row(
      "DER",
      `${percent(d.der, 2)} (missed ${secs(d.missed, 2)}, false alarm ${secs(d.falseAlarm, 2)}, confusion ${secs(d.confusion, 2)} of ${secs(d.total, 2)} scored; collar ±${d.collar} s${d.skipOverlap ? ", overlap skipped" : ""}; hypothesis = the transcript's segments)`,
    );
  }
  if (r.turns) {
    const { attribution: a, der: d } = r.turns;
    row("diarization", `speaker_turns: attribution accuracy ${percent(a.accuracy)}, coverage ${percent(a.coverage)}; DER ${percent(d.der, 2)} (missed ${secs(d.missed, 2)}, false alarm ${secs(d.falseAlarm, 2)}, confusion ${secs(d.confusion, 2)})`);
  }
  return out.join("\n");
}

export function markdownTable(results: CaseResult[]): string {
  const header = "| recording | audio | language ref / found | WER | S / D / I of N | speakers ref / found | coverage | attribution | DER | missed / FA / confusion | turns: attribution / DER | wall | RTF | models | status |";
  const rule = "|---|---:|---|---:|---|---|---:|---:|---:|---|---|---:|---:|---|---|";
  const rows = results.map((r) => {
    const w = r.wer;
    const d = r.der;
    return `| ${[
      r.name,
      secs(r.audioSeconds),
      `${r.language.reference ?? "–"} / ${r.language.detected ?? "–"}`,
      w ? percent(w.wer, 2) : "–",
      w ? `${w.substitutions} / ${w.deletions} / ${w.insertions} of ${w.referenceWords}` : "–",
      `${r.speakers.reference ?? "–"} / ${r.speakers.found ?? "–"}`,
      percent(r.attribution?.coverage),
      percent(r.attribution?.accuracy),
      d ? percent(d.der, 2) : "–",
      d ? `${d.missed.toFixed(2)} / ${d.falseAlarm.toFixed(2)} / ${d.confusion.toFixed(2)} s` : "–",
      r.turns ? `${percent(r.turns.attribution.accuracy)} / ${percent(r.turns.der.der, 2)}` : "–",
      secs(r.timing.wallSeconds),
      r.timing.realTimeFactor === null ? "–" : r.timing.realTimeFactor.toFixed(3),
      r.models ?? "–",
      r.status + (r.error ? `: ${r.error.replace(/\|/g, "\\|").replace(/\s+/g, " ").slice(0, 160)}` : ""),
    ].join(" | ")} |`;
  });
  return [header, rule, ...rows].join("\n");
}

/** JSON with NaN and ±Infinity as null. */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2);
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const say = (line: string) => {
    if (!options.quiet) console.error(line);
  };
  const cases: Case[] = options.allFixtures
    ? fixtureCases(resolve(options.fixturesDir))
    : [{ name: basename(options.audio!, extname(options.audio!)), audio: resolve(options.audio!), reference: options.reference && resolve(options.reference), rttm: options.rttm && resolve(options.rttm) }];
  for (const c of cases) {
    for (const path of [c.audio, c.reference, c.rttm]) if (path && !existsSync(path)) usage(`no such file: ${path}`);
  }

  let target: Target;
  if (options.server) {
    target = { url: options.server, key: options.key!, description: `running service at ${options.server}`, local: false, tail: () => "", stop: async () => {} };
  } else {
    say(`starting the service: ${options.binary ?? "bun src/main.ts"} serve --port 0 ...`);
    target = await startService(options, say);
    say(`service listening on ${target.url}`);
  }
  const interrupted = () => {
    void target.stop().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);

  const results: CaseResult[] = [];
  try {
    for (const c of cases) results.push(await runCase(target, c, options, say));
  } finally {
    await target.stop();
  }

  if (options.json) {
    console.log(toJson({ service: target.description, date: new Date().toISOString(), results }));
  } else if (options.markdown || options.allFixtures) {
    console.log(`Quality of ${target.description}, ${new Date().toISOString()}; DER collar ±${options.collar} s${options.skipOverlap ? ", overlap skipped" : ""}; segment columns score the transcript's segments, "turns" its speaker_turns (the diarization).\n`);
    console.log(markdownTable(results));
  } else {
    console.log(textReport(results[0]!, target.description));
  }
  return results.every((r) => r.status === "completed") ? 0 : 1;
}

if (import.meta.main) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(`bench/quality.ts: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
