import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { publicJobMessage } from "../errors/public-message.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { claimNextJob, LEASE_MS, releaseAllLeases, releaseLease, renewLease } from "./claims.ts";
import type { JobKind } from "./kind.ts";
import type { JobRow } from "./query.ts";
import { jobs } from "./table.ts";
import type { StepOutcome, WorkerPool } from "./worker-pool.ts";

export interface SchedulerOptions {
  db: Db;
  pool: WorkerPool;
  /** The job kinds this scheduler runs; each lives in its domain folder. */
  kinds: JobKind[];
  clock: Clock;
  stepTimeoutMs: number;
  /** Tries of one step before the job fails (a crash or a retryable engine error counts as one). */
  maxStepAttempts: number;
  /** Folders whose paths must never reach a client in an error message. */
  privatePaths: string[];
  log(line: string): void;
  /** Told how long each step run took and how it ended (metrics). */
  onStepFinished?(kind: string, step: string, outcome: StepOutcome["kind"], seconds: number): void;
}

/**
 * The job queue is the jobs table. The scheduler claims jobs (round-robin across accounts, see
 * claims.ts), runs each one step at a time on the worker pool, and records after each step which
 * step comes next, so a crash or restart resumes from there. What a step means is its kind's
 * business (kind.ts): this file knows no meeting.
 */
export class Scheduler {
  private readonly running = new Map<string, { runId: string | null }>();
  private readonly kinds: Map<string, JobKind>;
  /** This scheduler's name on the jobs it claims (jobs.lease_owner). */
  private readonly owner = randomId("sched");
  /** When each account last had a job claimed: the round-robin order. */
  private readonly lastServed = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopping = false;
  private ticking = false;

  constructor(private readonly o: SchedulerOptions) {
    this.kinds = new Map(o.kinds.map((k) => [k.kind, k]));
  }

  start(): void {
    releaseAllLeases(this.o.db);
    this.timer = setInterval(() => this.wake(), 2000);
    this.wake();
  }

  /** Looks for work now (after a job is created or one finishes). */
  wake(): void {
    if (this.stopping || this.ticking) return;
    this.ticking = true;
    try {
      while (this.running.size < this.o.pool.size) {
        const now = this.o.clock.now();
        const job = claimNextJob(this.o.db, { owner: this.owner, kinds: [...this.kinds.keys()], now, lastServed: this.lastServed });
        if (!job) break;
        this.lastServed.set(job.userId, now);
        this.running.set(job.id, { runId: null });
        // Renewed while the job runs, so the claim outlives any step however long.
        const renewal = setInterval(() => renewLease(this.o.db, job.id, this.owner, this.o.clock.now()), LEASE_MS / 3);
        this.runJob(job.id)
          .catch((error) => this.o.log(`job ${job.id} stopped on an unexpected error: ${(error as Error).stack ?? error}`))
          .finally(() => {
            clearInterval(renewal);
            releaseLease(this.o.db, job.id, this.owner);
            this.running.delete(job.id);
            setTimeout(() => this.wake(), 0);
          });
      }
    } finally {
      this.ticking = false;
    }
  }

  /** Cancels these jobs if unfinished; a step in progress is stopped by killing its worker. */
  cancel(jobIds: string[]): void {
    if (!jobIds.length) return;
    const now = this.o.clock.now();
    const active = this.o.db
      .update(jobs)
      .set({ status: "canceled", finishedAt: now })
      .where(and(inArray(jobs.id, jobIds), inArray(jobs.status, ["queued", "processing"])))
      .returning({ id: jobs.id })
      .all();
    for (const { id } of active) {
      const runId = this.running.get(id)?.runId;
      if (runId) this.o.pool.cancel(runId);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await this.o.pool.stop();
  }

  private loadJob(jobId: string): JobRow | undefined {
    return this.o.db.select().from(jobs).where(eq(jobs.id, jobId)).get();
  }

  private async runJob(jobId: string): Promise<void> {
    for (;;) {
      const job = this.loadJob(jobId);
      if (!job || (job.status !== "queued" && job.status !== "processing") || this.stopping) return;
      const kind = this.kinds.get(job.kind)!;
      const step = job.nextStep;
      if (step === null || !kind.isStep(step)) {
        this.fail(job, "invalid_step", `The job has no valid next step (${step}).`);
        return;
      }
      const runId = randomId("run");
      const input = kind.stepInput(this.o.db, job, step, runId);
      if (!input) return; // its subject is gone (deleted meanwhile)
      const now = this.o.clock.now();
      this.o.db.transaction((tx) => {
        tx.update(jobs)
          .set({
            status: "processing",
            stage: kind.stageOf(step),
            startedAt: job.startedAt ?? now,
            // A retried or resumed step starts over, but the job's progress never goes back.
            progress: Math.max(job.progress ?? 0, kind.progress(tx, job, step, 0)),
          })
          .where(eq(jobs.id, jobId))
          .run();
        kind.onStepStarted(tx, job, step, now);
      });

      this.running.set(jobId, { runId });
      const stepStarted = performance.now();
      const outcome = await this.o.pool.run(input, (fraction) => this.reportProgress(kind, job, step, fraction), this.o.stepTimeoutMs);
      this.running.set(jobId, { runId: null });
      this.o.onStepFinished?.(job.kind, step, outcome.kind, (performance.now() - stepStarted) / 1000);

      const current = this.loadJob(jobId);
      if (!current || current.status !== "processing" || outcome.kind === "canceled") return;
      if (outcome.kind === "failed") {
        if (!this.retryOrFail(current, outcome)) return;
        continue;
      }
      if (this.advance(kind, current, step, outcome) === "finished") return;
    }
  }

  private reportProgress(kind: JobKind, job: JobRow, step: string, fraction: number): void {
    this.o.db
      .update(jobs)
      .set({ progress: sql`max(coalesce(${jobs.progress}, 0), ${kind.progress(this.o.db, job, step, fraction)})` })
      .where(and(eq(jobs.id, job.id), eq(jobs.status, "processing")))
      .run();
  }

  /** Retries a retryable failure while attempts remain; answers false when the job failed instead. */
  private retryOrFail(job: JobRow, outcome: Extract<StepOutcome, { kind: "failed" }>): boolean {
    const attempts = job.stepAttempts + 1;
    if (outcome.retryable && attempts < this.o.maxStepAttempts) {
      this.o.log(
        `job ${job.id} step ${job.nextStep} failed (${outcome.code}: ${outcome.message})${detailSuffix(outcome.detail)}; try ${attempts + 1} of ${this.o.maxStepAttempts}`,
      );
      this.o.db.update(jobs).set({ stepAttempts: attempts }).where(eq(jobs.id, job.id)).run();
      return true;
    }
    this.fail(job, outcome.code, outcome.message, outcome.detail);
    return false;
  }

  private fail(job: JobRow, code: string, rawMessage: string, detail?: string): void {
    const now = this.o.clock.now();
    // The last guard before the client: a message naming a server path is replaced by its code's sentence.
    const { message, withheld } = publicJobMessage(code, rawMessage, this.o.privatePaths);
    const kind = this.kinds.get(job.kind)!;
    this.o.db.transaction((tx) => {
      tx.update(jobs).set({ status: "failed", errorCode: code, errorMessage: message, finishedAt: now }).where(eq(jobs.id, job.id)).run();
      kind.onFailed(tx, job, now);
    });
    this.o.log(`job ${job.id} failed: ${code}: ${message}${detailSuffix([withheld ? rawMessage : "", detail ?? ""].filter(Boolean).join(" | "))}`);
  }

  /** Applies a step's result and moves the job on, in one transaction. */
  private advance(kind: JobKind, job: JobRow, step: string, outcome: Extract<StepOutcome, { kind: "done" }>): "continue" | "finished" {
    const now = this.o.clock.now();
    let next: string | null = null;
    let refused: { code: string; message: string } | null = null;
    this.o.db.transaction((tx) => {
      refused = kind.admitResult?.(tx, job, outcome.result, now) ?? null;
      if (refused) {
        tx.update(jobs).set({ status: "failed", nextStep: null, errorCode: refused.code, errorMessage: refused.message, finishedAt: now }).where(eq(jobs.id, job.id)).run();
        kind.onFailed(tx, job, now);
        return;
      }
      next = kind.stepAfter(tx, job, step);
      tx.update(jobs)
        .set({
          nextStep: next,
          stepAttempts: 0,
          stage: next ? kind.stageOf(next) : "done",
          progress: next ? kind.progress(tx, job, next, 0) : 1,
          ...(next ? {} : { status: "completed" as const, finishedAt: now }),
        })
        .where(eq(jobs.id, job.id))
        .run();
      // After the job row moved on, so the events they emit show the job as it now is.
      kind.onStepDone(tx, job, outcome.result, now);
      if (!next) kind.onCompleted(tx, job, now);
    });
    if (refused) {
      const { code, message } = refused as { code: string; message: string };
      this.o.log(`job ${job.id} failed: ${code}: ${message}`);
      return "finished";
    }
    return next ? "continue" : "finished";
  }
}

/** Raw failure text for the server log line, on one line. */
function detailSuffix(detail: string | undefined): string {
  return detail ? ` [detail: ${detail.replace(/\s*\n\s*/g, " | ")}]` : "";
}
