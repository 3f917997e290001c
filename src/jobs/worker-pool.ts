import type { Subprocess } from "bun";
import type { FromWorker, StepInput, StepResult, ToWorker } from "../worker/protocol.ts";

export type StepOutcome =
  | { kind: "done"; result: StepResult }
  | { kind: "failed"; code: string; message: string; retryable: boolean; detail?: string }
  | { kind: "canceled" };

interface Run {
  runId: string;
  onProgress(fraction: number): void;
  settle(outcome: StepOutcome): void;
}

interface Worker {
  process: Subprocess;
  ready: Promise<void>;
  /** Set once the worker has said it is ready (its engines loaded). */
  isReady: boolean;
  run?: Run;
  /** The run waiting for this worker to be ready; a cancel meanwhile kills the worker. */
  starting?: { runId: string; canceled: boolean };
  exited: boolean;
}

export interface WorkerPoolOptions {
  size: number;
  command: string[];
  /**
   * The worker's whole environment: nothing of the service's own is added (service.ts builds it
   * from an allowlist, lib/child-env.ts), so no secret of the service reaches a worker.
   */
  env: Record<string, string>;
  /**
   * How long a worker may take from its start to ready (loading its engines): one that takes
   * longer is killed, reported, and fails the step waiting for it. A step's own time limit starts
   * when its worker is ready, so a model load never counts against the step.
   */
  startTimeoutMs: number;
  /** Failures for the operator: a worker that died or never became ready. */
  log(line: string): void;
  /** Ordinary news for the operator's log: a worker is ready, and how long its engines took. */
  announce(line: string): void;
}

/**
 * Supervised worker processes that run job steps. `start()` starts them with the service, so each
 * loads its engines before the first job arrives and keeps them for every step and job after
 * (an API-only process simply never calls it; run() then starts a worker when first needed).
 * A worker that crashes fails only the step it was running (as retryable) and is replaced on the
 * next run; cancel and timeouts kill it, since a native engine cannot be interrupted from
 * JavaScript.
 */
export class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private stopped = false;
  private started = 0;
  private crashed = 0;

  /** Worker processes started and died mid-step since start, the live ones' pids (for metrics), and how many are ready. */
  stats(): { started: number; crashed: number; pids: number[]; ready: number } {
    const live = [...this.all];
    return { started: this.started, crashed: this.crashed, pids: live.map((w) => w.process.pid), ready: live.filter((w) => w.isReady).length };
  }

  constructor(private readonly options: WorkerPoolOptions) {}

  get size(): number {
    return this.options.size;
  }

  /**
   * Starts the pool's workers now, each loading its engines, instead of on the first step: the
   * service calls this once at start on a node that runs jobs. Returns at once; the workers become
   * ready in the background (stats().ready).
   */
  start(): void {
    while (!this.stopped && this.all.size < this.options.size) this.idle.push(this.spawn());
  }

  /** Runs one step on an idle worker (the scheduler never asks for more than `size` at once). */
  async run(input: StepInput, onProgress: (fraction: number) => void, timeoutMs: number): Promise<StepOutcome> {
    if (this.stopped) return { kind: "failed", code: "shutting_down", message: "The service is stopping.", retryable: true };
    const worker = this.takeIdle() ?? this.spawn();
    const starting = { runId: input.runId, canceled: false };
    worker.starting = starting;
    try {
      // No step time limit here: a worker still loading its engines is bounded by startTimeoutMs.
      await worker.ready;
    } catch (error) {
      if (starting.canceled) return { kind: "canceled" };
      return {
        kind: "failed",
        code: "worker_start_failed",
        message: "The worker process exited before it was ready.",
        retryable: true,
        detail: (error as Error).message,
      };
    } finally {
      worker.starting = undefined;
    }
    if (starting.canceled) return { kind: "canceled" };
    const outcome = await new Promise<StepOutcome>((settle) => {
      const timer = setTimeout(() => {
        this.kill(worker);
        settle({
          kind: "failed",
          code: "stage_timeout",
          message: `The ${input.step} step took longer than ${Math.round(timeoutMs / 1000)} s.`,
          retryable: true,
        });
      }, timeoutMs);
      worker.run = {
        runId: input.runId,
        onProgress,
        settle: (o) => {
          clearTimeout(timer);
          worker.run = undefined;
          settle(o);
        },
      };
      worker.process.send({ type: "run", input } satisfies ToWorker);
    });
    if (!worker.exited && !this.stopped) this.idle.push(worker);
    return outcome;
  }

  /** Stops the step now: its worker is killed and replaced by a fresh one when next needed. */
  cancel(runId: string): boolean {
    for (const worker of this.all) {
      if (worker.run?.runId === runId) {
        const run = worker.run;
        this.kill(worker);
        run.settle({ kind: "canceled" });
        return true;
      }
      // Still starting (a fresh worker loading its engines): killing it ends the wait in run().
      if (worker.starting?.runId === runId) {
        worker.starting.canceled = true;
        this.kill(worker);
        return true;
      }
    }
    return false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const exits = [...this.all].map((w) => {
      this.kill(w);
      return w.process.exited;
    });
    await Promise.all(exits);
  }

  /** An idle worker, a ready one first (one still loading its engines otherwise). */
  private takeIdle(): Worker | undefined {
    const index = this.idle.findIndex((w) => w.isReady);
    if (index >= 0) return this.idle.splice(index, 1)[0];
    return this.idle.pop();
  }

  private kill(worker: Worker): void {
    worker.exited = true;
    const index = this.idle.indexOf(worker);
    if (index >= 0) this.idle.splice(index, 1);
    // The worker leads its own process group: killing the group also stops the ffmpeg it started.
    try {
      process.kill(-worker.process.pid, "SIGKILL");
    } catch {
      try {
        worker.process.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  private spawn(): Worker {
    let markReady!: () => void;
    let failStart!: (error: Error) => void;
    const worker: Worker = {
      process: undefined as unknown as Subprocess,
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        failStart = reject;
      }),
      isReady: false,
      exited: false,
    };
    worker.ready.catch(() => {});
    const spawnedAt = performance.now();
    // A worker whose engines never finish loading would otherwise hold its place (and a step) forever.
    const startTimer = setTimeout(() => {
      if (worker.isReady || worker.exited) return;
      this.options.log(`worker ${worker.process.pid} was not ready after ${Math.round(this.options.startTimeoutMs / 1000)} s (loading its engines); killed`);
      this.kill(worker);
      failStart(new Error(`the worker was not ready after ${Math.round(this.options.startTimeoutMs / 1000)} s`));
    }, this.options.startTimeoutMs);
    worker.process = Bun.spawn(this.options.command, {
      env: this.options.env,
      detached: true,
      stdin: "ignore",
      stdout: "inherit",
      stderr: "inherit",
      serialization: "json",
      ipc: (message: FromWorker) => {
        if (message.type === "ready") {
          if (worker.exited) return; // killed meanwhile (canceled, or past its start time)
          clearTimeout(startTimer);
          worker.isReady = true;
          this.options.announce(`worker ${worker.process.pid} ready in ${((performance.now() - spawnedAt) / 1000).toFixed(1)} s (engines loaded)`);
          return markReady();
        }
        const run = worker.run;
        if (!run || message.runId !== run.runId) return;
        if (message.type === "progress") run.onProgress(message.fraction);
        else if (message.type === "done") run.settle({ kind: "done", result: message.result });
        else run.settle({ kind: "failed", code: message.code, message: message.message, retryable: message.retryable, detail: message.detail });
      },
      onExit: (_proc, exitCode, signalCode) => {
        const wasKilled = worker.exited;
        clearTimeout(startTimer);
        worker.exited = true;
        this.all.delete(worker);
        const index = this.idle.indexOf(worker);
        if (index >= 0) this.idle.splice(index, 1);
        failStart(new Error(`the worker exited before it was ready (code ${exitCode}, signal ${signalCode})`));
        if (!worker.isReady && !wasKilled) this.options.log(`worker ${worker.process.pid} exited before it was ready (code ${exitCode}, signal ${signalCode})`);
        if (worker.run && !wasKilled) {
          this.crashed++;
          this.options.log(`worker ${worker.process.pid} died (code ${exitCode}, signal ${signalCode}) during run ${worker.run.runId}`);
          worker.run.settle({
            kind: "failed",
            code: "worker_crashed",
            message: `The worker process died during the step (exit code ${exitCode}, signal ${signalCode}).`,
            retryable: true,
          });
        }
      },
    });
    this.all.add(worker);
    this.started++;
    return worker;
  }
}
