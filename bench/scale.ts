#!/usr/bin/env bun
/**
 * Scale-out on one machine (issue 22 item 8): N meetings of M minutes through 1 worker process
 * with 2 engine threads and through 2 worker processes with 1 engine thread each (the same stand-in
 * models and the same cores, so only the split differs), on SQLite and on PostgreSQL; jobs per
 * minute and queue latency (enqueue → first step started: the job's created_at → started_at, read
 * through GET /api/v1/jobs/:id). Then GET /api/v1/me requests/s on one API node over SQLite vs
 * over PostgreSQL (bench/api.ts's method: wrk, the bootstrap admin key, the rate limiter counting
 * every request, the request log written to a file).
 *
 *   bun bench/scale.ts [--n 4] [--minutes 1] [--skip-sqlite] [--skip-postgres] [--skip-api]
 *                      [--api-duration 10] [--api-connections 8] [--api-rounds 2] [--json]
 *
 * Shapes: SQLite is one `serve --workers 1 --threads 2` or `--workers 2 --threads 1` process.
 * PostgreSQL is one `serve --role api` node plus one `--role worker --workers 1 --threads 2` node
 * or two `--role worker --workers 1 --threads 1` nodes, over a throwaway cluster this bench starts
 * with scripts/postgres-for-tests.sh (fsync off: a test cluster) and a fresh database per run,
 * all nodes sharing one --storage-dir. Every upload is sent only once all workers said they had
 * loaded their models. Speed is reported, never asserted; the load average (uptime) is printed
 * beside each figure because the machine may be shared.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { readLines } from "../src/lib/lines.ts";
import { parseWrk } from "./api.ts";

const ROOT = join(import.meta.dir, "..");
const FIXTURES = join(ROOT, "..", "shared", "fixtures");
const MAIN = join(ROOT, "src/main.ts");
/** High enough that no plan limit (slots, wallet, rate) ever refuses or delays the bench. */
const UNLIMITED = ["--parallel-slots", "free=1000,standard=1000,pro=1000", "--allowances", "free=1000000000,standard=1000000000,pro=1000000000", "--rate-limits", "free=1000000000,standard=1000000000,pro=1000000000,anonymous=1000000000"];
const WORKER_READY = /^worker \d+ ready in [\d.]+ s/;
const KEY = /^\s+(vb_live_\w+)$/;
const LISTENING = /^Verbatim (?:API node )?listening on (https?:\/\/\S+)$/;

interface Options {
  n: number;
  minutes: number;
  sqlite: boolean;
  postgres: boolean;
  api: boolean;
  apiDuration: number;
  apiConnections: number;
  apiRounds: number;
  json: boolean;
}

const USAGE = `bun bench/scale.ts [options]
  --n N                  meetings per run (default 4)
  --minutes M            minutes of audio per meeting (default 1)
  --skip-sqlite          no SQLite runs
  --skip-postgres        no PostgreSQL runs
  --skip-api             no GET /api/v1/me comparison
  --api-duration S       seconds per wrk run (default 10)
  --api-connections C    wrk connections (default 8)
  --api-rounds R         alternating SQLite / PostgreSQL wrk rounds (default 2)
  --json                 print one JSON document instead of the tables`;

function fail(message: string): never {
  console.error(`bench/scale.ts: ${message}`);
  process.exit(2);
}

function parseOptions(argv: string[]): Options {
  const options: Options = { n: 4, minutes: 1, sqlite: true, postgres: true, api: true, apiDuration: 10, apiConnections: 8, apiRounds: 2, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const number = () => {
      const value = Number(argv[++i]);
      if (!(value > 0)) fail(`${arg} needs a positive number`);
      return value;
    };
    if (arg === "--n") options.n = Math.round(number());
    else if (arg === "--minutes") options.minutes = number();
    else if (arg === "--skip-sqlite") options.sqlite = false;
    else if (arg === "--skip-postgres") options.postgres = false;
    else if (arg === "--skip-api") options.api = false;
    else if (arg === "--api-duration") options.apiDuration = Math.round(number());
    else if (arg === "--api-connections") options.apiConnections = Math.round(number());
    else if (arg === "--api-rounds") options.apiRounds = Math.round(number());
    else if (arg === "--json") options.json = true;
    else if (arg === "--help") {
      console.log(USAGE);
      process.exit(0);
    } else fail(`unknown option ${arg}\n${USAGE}`);
  }
  return options;
}

/** Progress goes to stderr, so that stdout is the tables (or the JSON) alone. */
const note = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const uptime = () => loadavg().map((l) => l.toFixed(2)).join(" ");

// ---------------------------------------------------------------------------------------------
// Audio: one recording per meeting, each starting at another point of the looped fixtures, so no
// two uploads are the same bytes.

async function makeAudio(dir: string, n: number, minutes: number): Promise<string[]> {
  const inputs = [join(FIXTURES, "meeting-en-3spk.wav"), join(FIXTURES, "meeting-fr-2spk.wav")];
  const seconds = minutes * 60;
  const list = join(dir, "list.txt");
  // The two fixtures are 94 s together; enough repeats for the longest offset plus the length.
  const repeats = Math.ceil((seconds + n * 7) / 94) + 1;
  await Bun.write(list, Array.from({ length: repeats }, () => inputs.map((f) => `file '${f}'`).join("\n")).join("\n"));
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const out = join(dir, `meeting-${i + 1}.wav`);
    const proc = Bun.spawn(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-ss", String(i * 7), "-t", String(seconds), "-ac", "1", out]);
    if ((await proc.exited) !== 0) throw new Error("ffmpeg could not concatenate the fixtures");
    files.push(out);
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// Processes.

interface Node {
  name: string;
  proc: Bun.Subprocess;
  lines: string[];
}

/**
 * Starts a node and keeps the last lines of its output (a full pipe would stall it). Not
 * spawnServer: an API node says "Verbatim API node listening on", and a worker node never listens.
 */
function startNode(name: string, command: string[]): Node {
  const proc = Bun.spawn(command, { cwd: ROOT, env: { ...process.env, ...modelsEnv }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const lines: string[] = [];
  const keep = async (stream: ReadableStream<Uint8Array>) => {
    for await (const line of readLines(stream)) {
      lines.push(line);
      if (lines.length > 400) lines.shift();
    }
  };
  void keep(proc.stdout);
  void keep(proc.stderr);
  return { name, proc, lines };
}

/** Waits for a line of `lines()` matching `pattern` (a node's output), failing if `proc` exits first. */
async function waitForLine(name: string, proc: Bun.Subprocess, lines: () => string[], pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    for (const line of lines()) {
      const match = pattern.exec(line);
      if (match) return match;
    }
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode}:\n${lines().slice(-30).join("\n")}`);
    if (performance.now() > deadline) throw new Error(`${name}: no line matching ${pattern} in ${timeoutMs / 1000} s:\n${lines().slice(-30).join("\n")}`);
    await Bun.sleep(50);
  }
}

/** An API (or all-role) node: its URL and the bootstrap admin key it printed on its first start. */
async function listening(node: Node): Promise<{ url: string; key: string }> {
  const url = (await waitForLine(node.name, node.proc, () => node.lines, LISTENING))[1]!;
  const key = (await waitForLine(node.name, node.proc, () => node.lines, KEY, 1000))[1]!;
  return { url, key };
}

/** Waits until `count` workers across `nodes` said they are ready (their models loaded). */
async function workersReady(nodes: Node[], count: number, timeoutMs = 180_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const ready = nodes.reduce((sum, node) => sum + node.lines.filter((line) => WORKER_READY.test(line)).length, 0);
    if (ready >= count) return;
    for (const node of nodes) {
      if (node.proc.exitCode !== null) throw new Error(`${node.name} exited with ${node.proc.exitCode}:\n${node.lines.slice(-30).join("\n")}`);
    }
    if (performance.now() > deadline) throw new Error(`${ready} of ${count} workers ready after ${timeoutMs / 1000} s:\n${nodes.map((n) => `${n.name}:\n${n.lines.slice(-15).join("\n")}`).join("\n")}`);
    await Bun.sleep(100);
  }
}

async function stopAll(nodes: Node[]): Promise<void> {
  for (const node of nodes) node.proc.kill("SIGTERM");
  await Promise.all(
    nodes.map(async (node) => {
      const stopped = await Promise.race([node.proc.exited.then(() => true), Bun.sleep(30_000).then(() => false)]);
      if (!stopped) {
        note(`${node.name} did not stop within 30 s of SIGTERM: killed`);
        node.proc.kill("SIGKILL");
        await node.proc.exited;
      }
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a throwaway cluster for the whole bench, a fresh database per run.

class Postgres {
  private constructor(
    readonly dir: string,
    readonly url: string,
  ) {}

  static async start(): Promise<Postgres> {
    const dir = `/tmp/verbatim-bench-pg-${process.pid}`;
    const proc = Bun.spawn([join(ROOT, "scripts/postgres-for-tests.sh"), "start", dir], { stdout: "pipe", stderr: "pipe" });
    const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    if (code !== 0) throw new Error(`scripts/postgres-for-tests.sh start failed: ${err}`);
    return new Postgres(dir, out.trim());
  }

  database(name: string): string {
    const made = Bun.spawnSync(["psql", this.url, "-v", "ON_ERROR_STOP=1", "-qAtc", `CREATE DATABASE "${name}"`], { stdout: "pipe", stderr: "pipe" });
    if (made.exitCode !== 0) throw new Error(`CREATE DATABASE ${name}: ${made.stderr.toString()}`);
    const url = new URL(this.url);
    url.pathname = `/${name}`;
    return url.toString();
  }

  version(): string {
    return Bun.spawnSync(["psql", this.url, "-qAtc", "SHOW server_version"]).stdout.toString().trim();
  }

  setting(name: string): string {
    return Bun.spawnSync(["psql", this.url, "-qAtc", `SHOW ${name}`]).stdout.toString().trim();
  }

  async stop(): Promise<void> {
    await Bun.spawn([join(ROOT, "scripts/postgres-for-tests.sh"), "stop", this.dir], { stdout: "ignore", stderr: "inherit" }).exited;
  }
}

// ---------------------------------------------------------------------------------------------
// One processing run: start the shape, wait for the workers, upload N meetings at once, poll.

type Dialect = "sqlite" | "postgres";

interface Shape {
  workers: number;
  threads: number;
}

interface RunResult {
  dialect: Dialect;
  shape: string;
  topology: string;
  workers: number;
  threadsPerWorker: number;
  meetings: number;
  audioMinutes: number;
  /** From the first job's created_at to the last job's finished_at. */
  makespanSeconds: number;
  jobsPerMinute: number;
  /** Audio minutes processed per wall minute (= real-time speed of the whole install). */
  audioMinutesPerMinute: number;
  queueLatencyMs: { mean: number; p50: number; max: number };
  /** What the reports' random-weight LLM wrote, all jobs together: it varies from run to run and weighs on the time. */
  reportTokens: number;
  /** started_at → finished_at per job. */
  processingSeconds: { mean: number; max: number };
  loadBefore: string;
  loadAfter: string;
}

const modelsEnv = { VERBATIM_MODELS_PROFILE: "stand-in" };

async function processingRun(dialect: Dialect, shape: Shape, audio: string[], options: Options, postgres: Postgres | null): Promise<RunResult> {
  const scratch = mkdtempSync(join(tmpdir(), `verbatim-bench-scale-${dialect}-`));
  const nodes: Node[] = [];
  try {
    const bun = process.execPath;
    const common = [...UNLIMITED, "--models-profile", "stand-in"];
    let url: string;
    let key: string;
    let topology: string;
    if (dialect === "sqlite") {
      topology = `1 process: serve --workers ${shape.workers} --threads ${shape.threads}`;
      const node = startNode("serve", [bun, MAIN, "serve", "--port", "0", "--data-dir", join(scratch, "data"), "--workers", String(shape.workers), "--threads", String(shape.threads), ...common]);
      nodes.push(node);
      ({ url, key } = await listening(node));
    } else {
      const databaseUrl = postgres!.database(`scale_${shape.workers}x${shape.threads}_${Date.now()}`);
      const storage = join(scratch, "storage");
      mkdirSync(storage);
      const cluster = ["--database-url", databaseUrl, "--storage-dir", storage];
      const api = startNode("API node", [bun, MAIN, "serve", "--role", "api", "--port", "0", "--data-dir", join(scratch, "api"), ...cluster, ...common]);
      nodes.push(api);
      ({ url, key } = await listening(api));
      const workerNodes = shape.workers;
      topology = `1 --role api node + ${workerNodes} --role worker node${workerNodes > 1 ? "s" : ""} (--workers 1 --threads ${shape.threads})`;
      for (let i = 0; i < workerNodes; i++) {
        nodes.push(
          startNode(`worker node ${i + 1}`, [bun, MAIN, "serve", "--role", "worker", "--workers", "1", "--threads", String(shape.threads), "--data-dir", join(scratch, `worker-${i + 1}`), ...cluster, ...common]),
        );
      }
    }
    await workersReady(nodes, shape.workers);
    note(`${dialect} ${shape.workers}×${shape.threads}: ${shape.workers} worker(s) ready; uploading ${audio.length} meetings (load ${uptime()})`);
    const loadBefore = uptime();
    const headers = { Authorization: `Bearer ${key}` };

    const jobIds = await Promise.all(
      audio.map(async (file, i) => {
        const form = new FormData();
        form.append("file", Bun.file(file), `meeting-${i + 1}.wav`);
        const response = await fetch(`${url}/api/v1/meetings`, { method: "POST", headers, body: form });
        const body = (await response.json()) as { job?: { id: string } };
        if (response.status !== 201 && response.status !== 202) throw new Error(`upload ${i + 1} answered ${response.status}: ${JSON.stringify(body)}`);
        return body.job!.id;
      }),
    );

    interface Job {
      status: string;
      created_at: string;
      started_at: string | null;
      finished_at: string | null;
      error: unknown;
      usage: { completion_tokens?: number } | null;
    }
    // Generous: on a loaded 2-core machine one minute of audio took up to 3 minutes (1 worker × 2 threads).
    const deadline = performance.now() + 600_000 + audio.length * options.minutes * 300_000;
    let jobs: Job[];
    for (;;) {
      jobs = await Promise.all(jobIds.map(async (id) => (await (await fetch(`${url}/api/v1/jobs/${id}`, { headers })).json()) as Job));
      const bad = jobs.find((job) => job.status === "failed" || job.status === "canceled");
      if (bad) throw new Error(`a job ${bad.status}: ${JSON.stringify(bad.error)}`);
      if (jobs.every((job) => job.status === "completed")) break;
      if (performance.now() > deadline) throw new Error(`jobs not done in time: ${jobs.map((j) => j.status).join(", ")}`);
      await Bun.sleep(250);
    }
    const loadAfter = uptime();
    const ms = (at: string | null) => Date.parse(at!);
    const latencies = jobs.map((job) => ms(job.started_at) - ms(job.created_at)).sort((a, b) => a - b);
    const processing = jobs.map((job) => (ms(job.finished_at) - ms(job.started_at)) / 1000);
    const makespanSeconds = (Math.max(...jobs.map((job) => ms(job.finished_at))) - Math.min(...jobs.map((job) => ms(job.created_at)))) / 1000;
    return {
      dialect,
      shape: `${shape.workers} worker${shape.workers > 1 ? "s" : ""} × ${shape.threads} thread${shape.threads > 1 ? "s" : ""}`,
      topology,
      workers: shape.workers,
      threadsPerWorker: shape.threads,
      meetings: audio.length,
      audioMinutes: options.minutes,
      makespanSeconds,
      jobsPerMinute: audio.length / (makespanSeconds / 60),
      audioMinutesPerMinute: (audio.length * options.minutes) / (makespanSeconds / 60),
      queueLatencyMs: {
        mean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
        p50: latencies[Math.floor((latencies.length - 1) / 2)]!,
        max: latencies.at(-1)!,
      },
      reportTokens: jobs.reduce((sum, job) => sum + (job.usage?.completion_tokens ?? 0), 0),
      processingSeconds: { mean: processing.reduce((a, b) => a + b, 0) / processing.length, max: Math.max(...processing) },
      loadBefore,
      loadAfter,
    };
  } finally {
    await stopAll(nodes);
    rmSync(scratch, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/me on one API node: SQLite (--role all, its one worker idle) vs PostgreSQL (--role api).

interface ApiRow {
  dialect: Dialect;
  round: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  load: string;
}

async function apiNode(dialect: Dialect, dir: string, postgres: Postgres | null): Promise<{ url: string; key: string; proc: Bun.Subprocess }> {
  const database = dialect === "postgres" ? ["--role", "api", "--database-url", postgres!.database(`scale_api_${Date.now()}`), "--storage-dir", join(dir, "storage")] : [];
  const logPath = join(dir, "stdout.log");
  mkdirSync(dir, { recursive: true });
  // stdout to a file, as bench/api.ts does: the request log is really written, by the server's own
  // writer, and this process spends no CPU reading it while wrk runs.
  const proc = Bun.spawn(
    [process.execPath, "--max-http-header-size=65536", MAIN, "serve", "--port", "0", "--data-dir", join(dir, "data"), "--log-requests=true", "--models-profile", "stand-in", ...UNLIMITED, ...database],
    { cwd: ROOT, env: { ...process.env, ...modelsEnv, VERBATIM_LOG_REQUESTS: "true" }, stdin: "ignore", stdout: Bun.file(logPath), stderr: "inherit" },
  );
  const lines = () => (existsSync(logPath) ? readFileSync(logPath, "utf8").split("\n") : []);
  const name = `${dialect} API node`;
  const url = (await waitForLine(name, proc, lines, LISTENING))[1]!;
  const key = (await waitForLine(name, proc, lines, KEY, 1000))[1]!;
  return { url, key, proc };
}

async function wrk(url: string, key: string, connections: number, seconds: number) {
  const proc = Bun.spawn(["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-H", `Authorization: Bearer ${key}`, `${url}/api/v1/me`], { stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${out}\n${err}`);
  return parseWrk(out, connections);
}

async function apiComparison(options: Options, postgres: Postgres | null): Promise<ApiRow[]> {
  if (!Bun.which("wrk")) throw new Error("wrk is not on PATH (bench/api.ts's load generator)");
  const dir = mkdtempSync(join(tmpdir(), "verbatim-bench-scale-api-"));
  const dialects: Dialect[] = [...(options.sqlite ? (["sqlite"] as const) : []), ...(options.postgres ? (["postgres"] as const) : [])];
  const servers = new Map<Dialect, Awaited<ReturnType<typeof apiNode>>>();
  const rows: ApiRow[] = [];
  try {
    for (const dialect of dialects) servers.set(dialect, await apiNode(dialect, join(dir, dialect), postgres));
    // Warm both up (JIT, the pools' connections) before anything is measured.
    for (const dialect of dialects) {
      const { url, key } = servers.get(dialect)!;
      const check = await fetch(`${url}/api/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
      if (check.status !== 200) throw new Error(`${dialect}: GET /api/v1/me answered ${check.status}`);
      await wrk(url, key, options.apiConnections, 3);
    }
    // Alternate the dialects round by round: two runs a minute apart differ on a shared VM.
    for (let round = 1; round <= options.apiRounds; round++) {
      for (const dialect of dialects) {
        const { url, key } = servers.get(dialect)!;
        const result = await wrk(url, key, options.apiConnections, options.apiDuration);
        rows.push({ dialect, round, rps: result.rps, p50Ms: result.p50Ms, p99Ms: result.p99Ms, requests: result.requests, errors: result.non2xx + result.socketErrors, load: uptime() });
        note(`GET /api/v1/me ${dialect} round ${round}: ${result.rps.toFixed(0)} req/s (load ${uptime()})`);
      }
    }
  } finally {
    await stopAll([...servers.entries()].map(([dialect, s]) => ({ name: `${dialect} API node`, proc: s.proc, lines: [] })));
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------

const fixed = (n: number, digits = 1) => n.toFixed(digits);

function printTables(facts: Record<string, string>, runs: RunResult[], api: ApiRow[], options: Options): void {
  console.log(`# bench/scale.ts, ${facts.date}\n`);
  for (const [name, value] of Object.entries(facts)) if (name !== "date") console.log(`- ${name}: ${value}`);
  if (runs.length) {
    console.log(`\n${options.n} meetings of ${options.minutes} min, uploaded at once; queue latency = created_at → started_at of each job; jobs/min = meetings / (first created_at → last finished_at).\n`);
    console.log("| database | workers × threads | topology | jobs/min | audio min/min | makespan | queue latency mean / p50 / max | processing per job mean / max | report tokens | load (1/5/15 min) before → after |");
    console.log("|---|---|---|---:|---:|---:|---|---|---:|---|");
    for (const r of runs) {
      const q = r.queueLatencyMs;
      console.log(
        `| ${r.dialect === "sqlite" ? "SQLite" : "PostgreSQL"} | ${r.shape} | ${r.topology} | ${fixed(r.jobsPerMinute, 2)} | ${fixed(r.audioMinutesPerMinute, 2)} | ${fixed(r.makespanSeconds)} s | ` +
          `${(q.mean / 1000).toFixed(2)} / ${(q.p50 / 1000).toFixed(2)} / ${(q.max / 1000).toFixed(2)} s | ${fixed(r.processingSeconds.mean)} / ${fixed(r.processingSeconds.max)} s | ${r.reportTokens} | ${r.loadBefore} → ${r.loadAfter} |`,
      );
    }
  }
  if (api.length) {
    console.log(`\nGET /api/v1/me on one API node, wrk -t1 -c${options.apiConnections} -d${options.apiDuration}s, alternating rounds (SQLite: serve --role all, its worker idle; PostgreSQL: serve --role api):\n`);
    console.log("| round | database | req/s | p50 ms | p99 ms | requests | errors | load (1/5/15 min) after |");
    console.log("|---:|---|---:|---:|---:|---:|---:|---|");
    for (const r of api) console.log(`| ${r.round} | ${r.dialect === "sqlite" ? "SQLite" : "PostgreSQL"} | ${r.rps.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.requests} | ${r.errors} | ${r.load} |`);
    const median = (dialect: Dialect) => {
      const values = api.filter((r) => r.dialect === dialect).map((r) => r.rps).sort((a, b) => a - b);
      return values.length ? values[Math.floor((values.length - 1) / 2)]! : NaN;
    };
    if (options.sqlite && options.postgres) console.log(`\nPostgreSQL / SQLite (median of the rounds): ${(median("postgres") / median("sqlite")).toFixed(2)}`);
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (!options.sqlite && !options.postgres) fail("--skip-sqlite and --skip-postgres leave nothing to run");
  const scratch = mkdtempSync(join(tmpdir(), "verbatim-bench-scale-audio-"));
  let postgres: Postgres | null = null;
  const stopPostgres = () => {
    if (postgres) Bun.spawnSync([join(ROOT, "scripts/postgres-for-tests.sh"), "stop", postgres.dir]);
    rmSync(scratch, { recursive: true, force: true });
    process.exit(130);
  };
  process.once("SIGINT", stopPostgres);
  process.once("SIGTERM", stopPostgres);
  const runs: RunResult[] = [];
  let api: ApiRow[] = [];
  const facts: Record<string, string> = {
    date: new Date().toISOString(),
    machine: `${availableParallelism()} cores (nproc), ${cpus()[0]?.model ?? "CPU"}`,
    bun: Bun.version,
    models: "stand-in profile (VERBATIM_MODELS_PROFILE=stand-in: tiny random-weight whisper, LLM and speaker models)",
  };
  try {
    note(`making ${options.n} recordings of ${options.minutes} min`);
    const audio = await makeAudio(scratch, options.n, options.minutes);
    if (options.postgres) {
      postgres = await Postgres.start();
      facts.postgres = `${postgres.version()} (scripts/postgres-for-tests.sh: fsync=off, synchronous_commit=off, max_connections=${postgres.setting("max_connections")}), nodes at their default --database-pool-size`;
    }
    const shapes: Shape[] = [
      { workers: 1, threads: 2 },
      { workers: 2, threads: 1 },
    ];
    for (const dialect of ["sqlite", "postgres"] as const) {
      if (dialect === "sqlite" ? !options.sqlite : !options.postgres) continue;
      for (const shape of shapes) {
        note(`${dialect}: ${shape.workers} worker(s) × ${shape.threads} thread(s)`);
        runs.push(await processingRun(dialect, shape, audio, options, postgres));
        const r = runs.at(-1)!;
        note(`  ${r.jobsPerMinute.toFixed(2)} jobs/min, queue latency mean ${(r.queueLatencyMs.mean / 1000).toFixed(2)} s (load ${r.loadAfter})`);
      }
    }
    if (options.api) api = await apiComparison(options, postgres);
  } finally {
    if (postgres) await postgres.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  if (options.json) console.log(JSON.stringify({ ...facts, options, runs, api }, null, 2));
  else printTables(facts, runs, api, options);
  return api.some((r) => r.errors > 0) ? 1 : 0;
}

if (import.meta.main) {
  try {
    process.exit(await main());
  } catch (error) {
    console.error(`bench/scale.ts: ${(error as Error).stack ?? error}`);
    process.exit(1);
  }
}
