// The worker pool with real worker processes (src/main.ts worker) over engine doubles written
// here: workers start with the pool and load their models before the first step, keep them for
// every step after, and a worker that crashes, or never becomes ready, is reported and replaced.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workerCommand } from "../worker/command.ts";
import { WORKER_CONFIG_ENV, type WorkerConfig } from "../worker/config.ts";
import type { StepInput } from "../worker/protocol.ts";
import { WorkerPool, type StepOutcome } from "./worker-pool.ts";
import { alive, until } from "../../test/helpers/processes.ts";

const ROOT = join(import.meta.dir, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "verbatim-worker-pool-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * An engines module over the doubles whose preload() waits `preloadMs` (or forever) like a model
 * load, and whose documents are titled with the worker's pid and whether preload() had finished.
 */
function enginesModule(name: string, preloadMs: number | "never"): string {
  const path = join(scratch, `${name}.ts`);
  const wait = preloadMs === "never" ? "new Promise(() => {})" : `Bun.sleep(${preloadMs})`;
  writeFileSync(
    path,
    `import { createEngines as doubles } from ${JSON.stringify(join(ROOT, "test/doubles/engines.ts"))};
export function createEngines() {
  const engines = doubles();
  let loaded = false;
  return {
    ...engines,
    async preload() { await ${wait}; loaded = true; return []; },
    writer: { async write(input, context) { return { ...(await engines.writer.write(input, context)), title: process.pid + " " + loaded }; } },
  };
}
`,
  );
  return path;
}

function workerEnv(engines: string, behaviour = ""): Record<string, string> {
  const config: WorkerConfig = {
    engines,
    modelsDir: scratch,
    models: { whisper: "w.bin", vad: null, segmentation: "s.onnx", embedding: "e.onnx", llm: "l.gguf" },
    threads: 1,
    gpu: false,
    whisperDecoding: {},
    diarizationThreshold: 0.5,
    llmContextSize: null,
    speakers: { min: null, max: null },
    ffmpegPath: "ffmpeg",
    egressAllow: "",
    maxDownloadBytes: 1,
    downloadTimeoutMs: 1000,
    maxDurationSeconds: 60,
    minFreeDisk: { percent: 0, bytes: 0 },
  };
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? scratch, TEST_ENGINE_BEHAVIOR: behaviour, [WORKER_CONFIG_ENV]: JSON.stringify(config) };
}

let runs = 0;
function generate(): StepInput {
  return {
    kind: "document_generation",
    runId: `run_${++runs}`,
    step: "generate",
    jobId: "job_1",
    storageDir: scratch,
    document: {
      task: "Write the minutes.",
      instructions: null,
      title: null,
      language: "en",
      meeting: { title: "Weekly", date: "2026-11-26", participants: [] },
      report: "# Report",
      transcript: null,
    },
  };
}

/** The title of a finished document step: "<worker pid> <whether preload had finished>". */
function titleOf(outcome: StepOutcome): string {
  if (outcome.kind !== "done" || outcome.result.step !== "generate") throw new Error(`the step did not finish: ${JSON.stringify(outcome)}`);
  return outcome.result.document.title;
}


let pool: WorkerPool | undefined;
const logged: string[] = [];
const announced: string[] = [];
function newPool(env: Record<string, string>, startTimeoutMs = 30_000): WorkerPool {
  logged.length = 0;
  announced.length = 0;
  pool = new WorkerPool({
    size: 1,
    command: workerCommand(),
    env,
    startTimeoutMs,
    log: (line) => logged.push(line),
    announce: (line) => announced.push(line),
  });
  return pool;
}
afterEach(async () => {
  await pool?.stop();
  pool = undefined;
});

describe("WorkerPool", () => {
  test("start() readies a worker before any step; that one process, its models loaded, serves every step", async () => {
    const p = newPool(workerEnv(enginesModule("slow-models", 1000)));
    p.start();
    expect(p.stats()).toMatchObject({ started: 1, ready: 0 });
    const [pid] = p.stats().pids;
    await until("the worker to be ready", () => p.stats().ready === 1);
    expect(announced).toEqual([expect.stringMatching(new RegExp(`^worker ${pid} ready in \\d+\\.\\d s \\(engines loaded\\)$`))]);

    // No step has run yet: it was started and loaded ahead of the first job.
    const first = titleOf(await p.run(generate(), () => {}, 5000));
    const second = titleOf(await p.run(generate(), () => {}, 5000));
    expect(first).toBe(`${pid} true`);
    expect(second).toBe(`${pid} true`);
    expect(p.stats()).toMatchObject({ started: 1, crashed: 0, pids: [pid], ready: 1 });
    expect(logged).toEqual([]);
  }, 30_000);

  test("a step's time limit starts when its worker is ready, not while the worker loads its models", async () => {
    const p = newPool(workerEnv(enginesModule("slower-models", 1500)));
    p.start();
    const started = Date.now();
    // 500 ms for the step, while the worker needs 1500 ms to load: the step still finishes.
    const outcome = await p.run(generate(), () => {}, 500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(titleOf(outcome)).toBe(`${p.stats().pids[0]} true`);
    expect(p.stats().started).toBe(1);
  }, 30_000);

  test("a worker that never becomes ready is killed at startTimeoutMs, reported, and fails the step waiting for it", async () => {
    const p = newPool(workerEnv(enginesModule("hung-models", "never")), 1000);
    p.start();
    const [pid] = p.stats().pids;
    const outcome = await p.run(generate(), () => {}, 60_000);
    expect(outcome).toMatchObject({ kind: "failed", code: "worker_start_failed", retryable: true });
    expect((outcome as { detail?: string }).detail).toContain("not ready after 1 s");
    expect(logged).toEqual([`worker ${pid} was not ready after 1 s (loading its engines); killed`]);
    await until(`worker ${pid} to be gone`, () => !alive(pid!), 5000);
    expect(p.stats()).toMatchObject({ pids: [], ready: 0 });
  }, 30_000);

  test("a worker that crashes mid-step fails that step as retryable; the next step gets a fresh worker", async () => {
    const marker = join(scratch, "generate-crashed");
    const p = newPool(workerEnv(enginesModule("crashing-once", 0), `generate:crash-once=${marker}`));
    p.start();
    await until("the worker to be ready", () => p.stats().ready === 1);
    const [first] = p.stats().pids;
    const crashed = await p.run(generate(), () => {}, 5000);
    expect(existsSync(marker)).toBe(true);
    expect(crashed).toMatchObject({ kind: "failed", code: "worker_crashed", retryable: true });
    expect(logged.some((line) => line.startsWith(`worker ${first} died (code 70`))).toBe(true);

    const title = titleOf(await p.run(generate(), () => {}, 5000));
    const [second] = p.stats().pids;
    expect(second).not.toBe(first);
    expect(title).toBe(`${second} true`);
    expect(p.stats()).toMatchObject({ started: 2, crashed: 1, ready: 1 });
  }, 30_000);
});
