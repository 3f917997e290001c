#!/usr/bin/env bun
/**
 * Throughput and latency of GET /api/v1/me with everything a real request pays for switched on:
 * API-key authentication, the rate limiter (counting, with a limit too high to refuse) and the
 * JSON-lines request log (written to a real file). Starts its own server on a fresh data dir,
 * drives it with wrk (or autocannon when wrk is not on PATH), prints one Markdown table row per
 * connection count, and exits non-zero only when a request failed: speed is reported, not asserted.
 *
 *   bun bench/api.ts [--duration 10] [--connections 8,32] [--rounds 3] [--warmup 3] [--threads 1]
 *                    [--binary dist/verbatim] [--tool wrk|autocannon] [--quiet-wait 30]
 *
 * The baseline is an Elysia hello-world (bench/lib/hello-elysia.ts) driven the same way: for each
 * connection count the service and the baseline run in turn, --rounds times, and the ratio of
 * their throughputs is the median of the rounds (one pair of runs on a shared 2-core machine
 * varies by 10% or more).
 *
 * The server and the load generator share the machine's cores with anything else running there;
 * each run reports the CPU the server, the load generator and everything else used, waits (up to
 * --quiet-wait seconds) for the machine to be idle before it starts, and flags disturbed runs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { spawnServer } from "../test/helpers/spawn-server.ts";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = join(import.meta.dir, "..");
const PATH_UNDER_TEST = "/api/v1/me";
/** High enough never to refuse during a run, so the limiter still counts every request. */
const RATE_LIMIT = 1_000_000_000;

interface Options {
  duration: number;
  warmup: number;
  connections: number[];
  threads: number;
  binary?: string;
  tool?: "wrk" | "autocannon";
  /** Longest wait, in seconds, for an idle machine before each measured run. */
  quietWait: number;
  /** Alternating runs of the service and the baseline per connection count; the ratio reported is their median. */
  rounds: number;
}

interface RunResult {
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  socketErrors: number;
  /** CPU time the load generator itself used, in seconds. */
  loadCpuSeconds: number;
}

function usage(message?: string): never {
  if (message) console.error(`bench/api.ts: ${message}`);
  console.error(
    "usage: bun bench/api.ts [--duration SECONDS] [--connections 8,32] [--rounds 3] [--warmup SECONDS] [--threads N] [--binary dist/verbatim] [--tool wrk|autocannon] [--quiet-wait SECONDS]",
  );
  process.exit(2);
}

const FLAGS = ["--duration", "--warmup", "--threads", "--connections", "--binary", "--tool", "--quiet-wait", "--rounds"];

function parseArgs(argv: string[]): Options {
  const options: Options = { duration: 10, warmup: 3, connections: [8, 32], threads: 1, quietWait: 30, rounds: 3 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === "--help" || flag === "-h") usage();
    if (!FLAGS.includes(flag)) usage(`unknown option: ${flag}`);
    const value = inline ?? argv[++i];
    if (value === undefined) usage(`${flag} needs a value`);
    const positive = (text: string) => {
      const n = Number(text);
      if (!Number.isInteger(n) || n < 1) usage(`${flag} must be a whole number >= 1, got ${JSON.stringify(text)}`);
      return n;
    };
    switch (flag) {
      case "--duration":
        options.duration = positive(value);
        break;
      case "--warmup":
        options.warmup = value === "0" ? 0 : positive(value);
        break;
      case "--quiet-wait":
        options.quietWait = value === "0" ? 0 : positive(value);
        break;
      case "--threads":
        options.threads = positive(value);
        break;
      case "--rounds":
        options.rounds = positive(value);
        break;
      case "--connections":
        options.connections = value.split(",").map((c) => positive(c.trim()));
        break;
      case "--binary":
        options.binary = resolve(value);
        if (!existsSync(options.binary)) usage(`no such executable: ${options.binary} (build it with: bun run build)`);
        break;
      case "--tool":
        if (value !== "wrk" && value !== "autocannon") usage(`--tool must be wrk or autocannon, got ${value}`);
        options.tool = value;
        break;
      default:
        usage(`unknown option: ${flag}`);
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// The server under test

interface Server {
  url: string;
  key: string;
  pid: number;
  logPath: string;
  proc: Bun.Subprocess;
  stderr: () => string;
}

async function startServer(dataDir: string, binary: string | undefined): Promise<Server> {
  const logPath = join(dataDir, "stdout.log");
  const command = binary ? [binary] : [process.execPath, "--max-http-header-size=65536", join(ROOT, "src/main.ts")];
  const args = ["serve", "--port", "0", "--data-dir", dataDir, "--rate-limits", `pro=${RATE_LIMIT}`, "--log-requests=true"];
  // stdout goes straight to a file: the request log is really written, by the server's own writer,
  // and the bench process spends no CPU reading it while the load runs.
  const { url, proc, stdout, stderr } = await spawnServer({
    command: [...command, ...args],
    cwd: ROOT,
    env: { VERBATIM_LOG_REQUESTS: "true" },
    stdoutFile: logPath,
  });
  const key = stdout.map((line) => /^\s+(vb_live_\w+)$/.exec(line)?.[1]).find(Boolean);
  if (!key) {
    proc.kill("SIGKILL");
    throw new Error(`server printed no bootstrap API key:\n${stdout.join("\n")}`);
  }
  return { url, key, pid: proc.pid, logPath, proc, stderr: () => stderr.join("\n") };
}

/** Starts the Elysia hello-world baseline and waits for its URL. */
async function startBaseline(): Promise<{ url: string; pid: number; proc: Bun.Subprocess }> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "bench/lib/hello-elysia.ts")], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!/listening on (\S+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the Elysia baseline did not start");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { url: /listening on (\S+)/.exec(text)![1]!, pid: proc.pid, proc };
}

/** Peak resident set of the server process so far, in MiB (VmHWM). */
function peakRssMiB(pid: number): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the request log back once the server has flushed it: one line per request, and their statuses. */
async function summariseLog(logPath: string): Promise<{ lines: number; statuses: Map<number, number> }> {
  const statuses = new Map<number, number>();
  let lines = 0;
  const decoder = new TextDecoder();
  let pending = "";
  const count = (line: string) => {
    if (!line.includes('"msg":"request"')) return;
    lines++;
    const status = Number(/"status":(\d+)/.exec(line)?.[1] ?? 0);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  };
  for await (const chunk of Bun.file(logPath).stream()) {
    pending += decoder.decode(chunk, { stream: true });
    const parts = pending.split("\n");
    pending = parts.pop()!;
    for (const line of parts) count(line);
  }
  count(pending);
  return { lines, statuses };
}

// ---------------------------------------------------------------------------------------------
// Load generators

async function run(command: string[]): Promise<{ code: number; stdout: string; stderr: string; cpuSeconds: number }> {
  const proc = Bun.spawn(command, { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const cpuSeconds = Number(proc.resourceUsage()?.cpuTime.total ?? 0n) / 1e6;
  return { code, stdout, stderr, cpuSeconds };
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  switch (unit) {
    case "us":
      return n / 1000;
    case "ms":
      return n;
    case "s":
      return n * 1000;
    case "m":
      return n * 60_000;
    default:
      throw new Error(`unknown wrk time unit: ${unit}`);
  }
}

/** Parses `wrk --latency` output. */
export function parseWrk(out: string, connections: number): Omit<RunResult, "loadCpuSeconds"> {
  const need = (re: RegExp, what: string) => {
    const match = re.exec(out);
    if (!match) throw new Error(`could not find ${what} in wrk output:\n${out}`);
    return match;
  };
  const total = need(/^\s*(\d+) requests in ([\d.]+)(us|ms|s|m),/m, "the request count");
  const p50 = need(/^\s*50%\s+([\d.]+)(us|ms|s|m)\s*$/m, "p50");
  const p99 = need(/^\s*99%\s+([\d.]+)(us|ms|s|m)\s*$/m, "p99");
  const latency = need(/^\s*Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s|m)/m, "max latency");
  const rps = need(/^Requests\/sec:\s+([\d.]+)/m, "Requests/sec");
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    connections,
    seconds: toMs(total[2]!, total[3]!) / 1000,
    requests: Number(total[1]),
    rps: Number(rps[1]),
    p50Ms: toMs(p50[1]!, p50[2]!),
    p99Ms: toMs(p99[1]!, p99[2]!),
    maxMs: toMs(latency[1]!, latency[2]!),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

interface LoadTool {
  name: string;
  version: string;
  describe(connections: number, seconds: number): string;
  run(url: string, key: string, connections: number, seconds: number): Promise<RunResult>;
}

async function wrkTool(wrkPath: string, threads: number): Promise<LoadTool> {
  const version = (await run([wrkPath, "-v"])).stdout.split("\n")[0]!.replace(/\s+Copyright.*$/, "").trim();
  const args = (url: string, key: string, connections: number, seconds: number) => [
    `-t${Math.min(threads, connections)}`,
    `-c${connections}`,
    `-d${seconds}s`,
    "--latency",
    "-H",
    `Authorization: Bearer ${key}`,
    url + PATH_UNDER_TEST,
  ];
  return {
    name: "wrk",
    version,
    describe: (connections, seconds) => `wrk ${args("$URL", "$KEY", connections, seconds).map((a) => (a.includes(" ") ? `'${a}'` : a)).join(" ")}`,
    async run(url, key, connections, seconds) {
      const result = await run([wrkPath, ...args(url, key, connections, seconds)]);
      if (result.code !== 0) throw new Error(`wrk exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
      return { ...parseWrk(result.stdout, connections), loadCpuSeconds: result.cpuSeconds };
    },
  };
}

async function autocannonTool(threads: number): Promise<LoadTool> {
  const bin = join(ROOT, "node_modules/.bin/autocannon");
  if (!existsSync(bin)) throw new Error("neither wrk nor node_modules/.bin/autocannon is available (bun install)");
  const node = Bun.which("node");
  const launcher = node ? [node, bin] : [process.execPath, bin];
  const version = (await run([...launcher, "--version"])).stdout.split("\n")[0]!.trim();
  const args = (url: string, key: string, connections: number, seconds: number) => [
    "-c",
    String(connections),
    "-d",
    String(seconds),
    ...(threads > 1 ? ["-w", String(threads)] : []),
    "-j",
    "-H",
    `Authorization=Bearer ${key}`,
    url + PATH_UNDER_TEST,
  ];
  return {
    name: "autocannon",
    version,
    describe: (connections, seconds) => `autocannon ${args("$URL", "$KEY", connections, seconds).map((a) => (a.includes(" ") ? `'${a}'` : a)).join(" ")}`,
    async run(url, key, connections, seconds) {
      const result = await run([...launcher, ...args(url, key, connections, seconds)]);
      const json = result.stdout.trim().split("\n").pop() ?? "";
      if (result.code !== 0 || !json.startsWith("{")) throw new Error(`autocannon exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
      const r = JSON.parse(json) as {
        duration: number;
        requests: { total: number; average: number };
        latency: { p50: number; p99: number; max: number };
        non2xx: number;
        errors: number;
        timeouts: number;
      };
      return {
        connections,
        seconds: r.duration,
        requests: r.requests.total,
        rps: r.requests.total / r.duration,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        maxMs: r.latency.max,
        non2xx: r.non2xx,
        socketErrors: r.errors + r.timeouts,
        loadCpuSeconds: result.cpuSeconds,
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CPU accounting: the server and the load generator share 2 cores, and so does anything else
// running on the machine; a run disturbed by other processes says so instead of passing as slow.

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** Busy CPU seconds of the whole machine since boot (everything but idle and iowait). */
function machineBusySeconds(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS;
}

/** CPU seconds used by one process (all its threads) so far. */
function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime
  } catch {
    return 0;
  }
}

interface CpuShares {
  server: number;
  load: number;
  other: number;
}

async function measured<T extends RunResult>(pid: number, work: () => Promise<T>): Promise<T & { cpu: CpuShares }> {
  const [busy0, server0, wall0] = [machineBusySeconds(), processCpuSeconds(pid), performance.now()];
  const result = await work();
  const [busy1, server1, wall1] = [machineBusySeconds(), processCpuSeconds(pid), performance.now()];
  const wall = (wall1 - wall0) / 1000;
  const server = (server1 - server0) / wall;
  const load = result.loadCpuSeconds / wall;
  return { ...result, cpu: { server, load, other: Math.max(0, (busy1 - busy0) / wall - server - load) } };
}

/** CPU (in cores) everything on the machine used over the next `ms` milliseconds. */
async function machineLoad(ms: number): Promise<number> {
  const busy0 = machineBusySeconds();
  await Bun.sleep(ms);
  return (machineBusySeconds() - busy0) / (ms / 1000);
}

/** Waits until the machine has been idle for a second (the idle server included), or `maxSeconds`. */
async function waitForQuiet(maxSeconds: number): Promise<{ waited: number; load: number }> {
  const started = performance.now();
  let load = await machineLoad(1000);
  while (load > QUIET_CORES && performance.now() - started < maxSeconds * 1000) load = await machineLoad(1000);
  return { waited: (performance.now() - started) / 1000 - 1, load };
}

const QUIET_CORES = 0.1;
const DISTURBED_CORES = 0.15;

// ---------------------------------------------------------------------------------------------
// Machine facts

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? "unknown";
  } catch {
    return "unknown";
  }
}

async function serverBunVersion(binary: string | undefined): Promise<string> {
  if (!binary) return Bun.version;
  // A `bun build --compile` executable behaves as the bun it embeds when BUN_BE_BUN is set; without
  // it, --version prints the service's own version, which must not pass for bun's.
  const [asBun, asService] = await Promise.all([
    run(["env", "BUN_BE_BUN=1", binary, "--version"]).catch(() => undefined),
    run([binary, "--version"]).catch(() => undefined),
  ]);
  const version = asBun?.stdout.trim() ?? "";
  return /^\d+\.\d+\.\d+\S*$/.test(version) && version !== asService?.stdout.trim() ? version : "unknown (not a bun-compiled executable?)";
}

// ---------------------------------------------------------------------------------------------

const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const wrkPath = options.tool === "autocannon" ? null : Bun.which("wrk");
  if (options.tool === "wrk" && !wrkPath) usage("--tool wrk: wrk is not on PATH");
  const tool = wrkPath ? await wrkTool(wrkPath, options.threads) : await autocannonTool(options.threads);

  const dataDir = mkdtempSync(join(tmpdir(), "verbatim-bench-"));
  try {
    return await benchmark(options, tool, dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchmark(options: Options, tool: LoadTool, dataDir: string): Promise<number> {
  let server: Server | undefined;
  const failures: string[] = [];
  const waits: string[] = [];
  const results: (RunResult & { cpu: CpuShares })[] = [];
  const baselines: (RunResult & { cpu: CpuShares })[] = [];
  let peakRss: number | undefined;
  try {
    server = await startServer(dataDir, options.binary);
    const check = await fetch(server.url + PATH_UNDER_TEST, { headers: { Authorization: `Bearer ${server.key}` } });
    const body = (await check.json()) as { rate_limit?: { limit?: number } };
    if (check.status !== 200) throw new Error(`GET ${PATH_UNDER_TEST} answered ${check.status}: ${JSON.stringify(body)}`);
    if (body.rate_limit?.limit !== RATE_LIMIT) throw new Error(`expected the pro limit ${RATE_LIMIT}, got ${JSON.stringify(body.rate_limit)}`);

    const facts = { nproc: navigator.hardwareConcurrency, cpu: cpuModel(), kernel: (await run(["uname", "-r"])).stdout.trim() };
    const bunVersion = await serverBunVersion(options.binary);
    console.log(`# GET ${PATH_UNDER_TEST} benchmark, ${new Date().toISOString()}`);
    console.log("");
    console.log(`- command: \`bun bench/api.ts${process.argv.slice(2).map((a) => ` ${a}`).join("")}\``);
    console.log(`- machine: ${facts.nproc} cores (nproc), ${facts.cpu}, Linux ${facts.kernel}`);
    console.log(`- server: ${options.binary ? `executable ${options.binary}` : "source, bun src/main.ts"} on bun ${bunVersion}, pid ${server.pid}`);
    console.log(`- load: ${tool.version}, on the same machine as the server`);
    console.log(
      `- on: API-key auth (Authorization: Bearer, admin key), rate limiter counting every request ` +
        `(--rate-limits pro=${RATE_LIMIT}: runs but never refuses), request log on (stdout to a file)`,
    );
    console.log(`- warm-up: ${options.warmup} s at ${Math.max(...options.connections)} connections, not reported`);
    console.log("");

    if (options.warmup > 0) {
      const warm = await tool.run(server.url, server.key, Math.max(...options.connections), options.warmup);
      if (warm.non2xx || warm.socketErrors) failures.push(`warm-up: ${warm.non2xx} non-2xx, ${warm.socketErrors} socket errors`);
    }

    // The baseline: an Elysia hello-world on the same machine, same tool, alternating with the service.
    const hello = await startBaseline();
    try {
      await tool.run(hello.url, "none", Math.max(...options.connections), Math.max(1, options.warmup));
      console.log(
        "| connections | round | server | command | requests | req/s | p50 ms | p99 ms | max ms | non-2xx | socket errors | CPU server / load gen / other (cores) |",
      );
      console.log("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
      const row = (round: number, label: string, command: string, r: RunResult & { cpu: CpuShares }) =>
        console.log(
          `| ${r.connections} | ${round} | ${label} | ${command} | ${r.requests} | ${Math.round(r.rps)} | ` +
            `${fmt(r.p50Ms)} | ${fmt(r.p99Ms)} | ${fmt(r.maxMs)} | ${r.non2xx} | ${r.socketErrors} | ` +
            `${r.cpu.server.toFixed(2)} / ${r.cpu.load.toFixed(2)} / ${r.cpu.other.toFixed(2)} |`,
        );
      for (const connections of options.connections) {
        const ratios: number[] = [];
        for (let round = 1; round <= options.rounds; round++) {
          if (options.quietWait > 0) {
            const quiet = await waitForQuiet(options.quietWait);
            if (quiet.waited >= 1 || quiet.load > QUIET_CORES) {
              waits.push(`${connections} connections, round ${round}: waited ${quiet.waited.toFixed(0)} s for other processes, then ${quiet.load.toFixed(2)} cores busy`);
            }
          }
          const live = server;
          const ours = await measured(live.pid, () => tool.run(live.url, live.key, connections, options.duration));
          results.push(ours);
          row(round, "Verbatim", `\`${tool.describe(connections, options.duration)}\``, ours);
          if (ours.non2xx) failures.push(`${connections} connections: ${ours.non2xx} non-2xx responses`);
          if (ours.socketErrors) failures.push(`${connections} connections: ${ours.socketErrors} socket errors`);
          if (server.proc.exitCode !== null) throw new Error(`server exited with ${server.proc.exitCode} during the run:\n${server.stderr()}`);
          const base = await measured(hello.pid, () => tool.run(hello.url, "none", connections, options.duration));
          row(round, "hello-world", "the same, against bench/lib/hello-elysia.ts", base);
          baselines.push(base);
          ratios.push(ours.rps / base.rps);
        }
        const sorted = [...ratios].sort((x, y) => x - y);
        const median = sorted[Math.floor(sorted.length / 2)]!;
        console.log(
          `|  |  |  | ratio GET /v1/me / hello-world at ${connections} connections: rounds ${ratios.map((r) => r.toFixed(2)).join(", ")}; median **${median.toFixed(2)}** |  |  |  |  |  |  |  |  |`,
        );
      }
      peakRss = peakRssMiB(server.pid);
    } finally {
      hello.proc.kill("SIGTERM");
      await hello.proc.exited;
    }
  } finally {
    if (server) {
      peakRss ??= peakRssMiB(server.pid);
      server.proc.kill("SIGTERM");
      const exitCode = await Promise.race([server.proc.exited, Bun.sleep(10_000).then(() => null)]);
      if (exitCode === null) {
        server.proc.kill("SIGKILL");
        failures.push("server did not stop within 10 s of SIGTERM");
      } else if (exitCode !== 0) failures.push(`server exited with ${exitCode} after SIGTERM:\n${server.stderr()}`);
    }
  }

  if (server) {
    const log = await summariseLog(server.logPath);
    const completed = results.reduce((sum, r) => sum + r.requests, 0);
    const statuses = [...log.statuses].map(([status, n]) => `${status}: ${n}`).join(", ");
    console.log("");
    console.log(`- server peak RSS (VmHWM at the end): ${peakRss === undefined ? "unknown" : `${peakRss.toFixed(1)} MiB`}`);
    console.log(`- request log: ${log.lines} lines written (statuses ${statuses || "none"}); the measured runs completed ${completed} requests`);
    for (const wait of waits) console.log(`- quiet wait before ${wait}`);
    const disturbed = [...results, ...baselines].filter((r) => r.cpu.other > DISTURBED_CORES);
    if (disturbed.length) {
      console.log(
        `- WARNING: other processes used CPU during the run at ${disturbed.map((r) => `${r.connections} connections (${r.cpu.other.toFixed(2)} cores)`).join(", ")}: ` +
          "those figures understate the service; rerun on a quiet machine",
      );
    }
    const bad = [...log.statuses].filter(([status]) => status < 200 || status > 299);
    if (bad.length) failures.push(`request log shows non-2xx statuses: ${bad.map(([s, n]) => `${s} x${n}`).join(", ")}`);
    // Every completed request is logged; the log may hold a few more (cut off by the load tool's end).
    if (log.lines < completed) failures.push(`request log has ${log.lines} lines for ${completed} completed requests: log lines were lost`);
    const stderr = server.stderr().trim();
    if (stderr) console.log(`- server stderr:\n\n\`\`\`\n${stderr}\n\`\`\``);
  }

  if (failures.length) {
    console.log(`\nFAILED:\n${failures.map((f) => `- ${f}`).join("\n")}`);
    return 1;
  }
  if (tool.name === "autocannon") console.log("\n(autocannon reports latencies in whole milliseconds.)");
  console.log("\nAll requests answered 2xx. Target (not asserted): >= 10,000 req/s with p99 < 5 ms.");
  return 0;
}

if (import.meta.main) {
  try {
    process.exit(await main());
  } catch (error) {
    console.error(`bench/api.ts: ${(error as Error).stack ?? error}`);
    process.exit(1);
  }
}
