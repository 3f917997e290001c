import { withTx, type DbConn } from "../db/conn.ts";
import { publicJobMessage } from "../errors/public-message.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { claimJob, claimNextJob, fairerJobWaits, holdsStep, LEASE_MS, releaseAllLeases, releaseLease, renewLease } from "./claims-store.ts";
import { registerJobKinds, type JobKind } from "./kind.ts";
import type { JobRow } from "./query.ts";
import { cancelUnfinished, loadJob, raiseProgress, updateJob } from "./store.ts";
import type { StepOutcome, WorkerPool } from "./worker-pool.ts";

export interface SchedulerOptions {
  conn: DbConn;
  pool: Pick<WorkerPool, "size" | "run" | "cancel" | "stop">;
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
  /** This scheduler's name on the jobs it claims: the node's id (nodes/heartbeat.ts). */
  owner?: string;
  /** The owner name of this node's previous run (on the same data dir, so surely ended): its claims are dropped at start. */
  previousOwner?: string | null;
  /**
   * The queue that tells this scheduler of new jobs (pg-boss on PostgreSQL, jobs/pg-boss-store.ts).
   * Without one (SQLite) the scheduler looks at the jobs table every 2 s and when woken; with one,
   * every message is a job to claim and run, and the table is looked at only every 30 s, for a
   * job whose message was lost.
   */
  feed?: JobFeed;
}

/** How queued jobs reach a scheduler on PostgreSQL: a handler per kind, called with a job's id. */
export interface JobFeed {
  work(kind: string, concurrency: number, handler: (jobId: string, signal: AbortSignal) => Promise<void>): Promise<void>;
}

/** What the use cases ask of the jobs they queue: look for work now, cancel these. */
export interface JobControl {
  wake(): void;
  cancel(jobIds: string[]): Promise<void>;
}

/** Thrown to a feed so that it offers the message again later (this node is full, or the job is held elsewhere). */
export class NotNow extends Error {}

/** How often the table is looked at without a feed, and with one (for jobs whose message was lost). */
const LOOK_EVERY_MS = 2000;
const SWEEP_EVERY_MS = 30_000;
/** A running job's claim is renewed this often: a cancel made on another node stops its step within it. */
const RENEW_EVERY_MS = Math.min(LEASE_MS / 3, 5000);

/** What a scheduler must still hold to write a step's outcome (claims-store.ts `holdsStep`). */
type StepFence = { owner: string; step: string | null; stepAttempts: number };

/**
 * The job queue is the jobs table. The scheduler claims jobs (round-robin across accounts, see
 * claims-store.ts), runs each one step at a time on the worker pool, and records after each step which
 * step comes next, so a crash or restart resumes from there. What a step means is its kind's
 * business (kind.ts): this file knows no meeting. Several schedulers may share one database
 * (PostgreSQL, several nodes): each write that starts or settles a step is fenced by the claim
 * and the step's attempt, so a scheduler whose claim was taken over writes nothing, and one that
 * learns it lost its claim stops the step's worker.
 */
export class Scheduler implements JobControl {
  private readonly running = new Map<string, { runId: string | null }>();
  private readonly kinds: Map<string, JobKind>;
  /** This scheduler's name on the jobs it claims (jobs.lease_owner). */
  private readonly owner: string;
  /** When each account last had a job claimed: the round-robin order. */
  private readonly lastServed = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopping = false;
  private ticking = false;
  private wakeAgain = false;

  constructor(private readonly o: SchedulerOptions) {
    this.kinds = new Map(o.kinds.map((k) => [k.declaration.kind, k]));
    this.owner = o.owner ?? randomId("sched");
    registerJobKinds(o.kinds.map((k) => k.declaration));
  }

  async start(): Promise<void> {
    await releaseAllLeases(this.o.conn, this.o.previousOwner ?? null);
    if (this.o.feed) {
      for (const kind of this.kinds.keys()) await this.o.feed.work(kind, this.o.pool.size, (jobId, signal) => this.runMessage(jobId, signal));
    }
    this.timer = setInterval(() => this.look(), this.o.feed ? SWEEP_EVERY_MS : LOOK_EVERY_MS);
    this.look();
  }

  /**
   * A queue message naming a job: claims it and runs it to its end, holding the message meanwhile
   * (the feed heartbeats it). Throws NotNow when this node has no free worker or another node's
   * claim is still live, so the feed offers the message again; a job already ended just ends the message.
   * The signal is aborted when the feed takes the message back: the step in progress here stops.
   */
  private async runMessage(jobId: string, signal: AbortSignal): Promise<void> {
    if (this.stopping) throw new NotNow("the scheduler is stopping");
    if (this.running.has(jobId)) return;
    if (this.running.size >= this.o.pool.size) throw new NotNow("every worker of this node is busy");
    const now = this.o.clock.now();
    // Messages come first in, first out: one account's fifty queued jobs would hold every worker
    // while another account's one job waits. Round-robin as claimNextJob does: this one waits.
    if (await fairerJobWaits(this.o.conn, jobId, { kinds: [...this.kinds.keys()], now, lastServed: this.lastServed })) {
      throw new NotNow("another account's job goes first");
    }
    const claimed = await claimJob(this.o.conn, jobId, { owner: this.owner, kinds: [...this.kinds.keys()], now });
    if (claimed === "gone") return;
    if (claimed === "held") throw new NotNow("another node holds the job");
    this.lastServed.set(claimed.userId, now);
    const stopHere = () => {
      const runId = this.running.get(jobId)?.runId;
      if (runId) this.o.pool.cancel(runId);
    };
    signal.addEventListener("abort", stopHere, { once: true });
    try {
      await this.runClaimed(claimed);
    } finally {
      signal.removeEventListener("abort", stopHere);
    }
  }

  /**
   * Looks for work now (after a job is created). With a feed, the job's message is what brings it
   * here (within the feed's polling interval, on whichever worker node is free), so nothing is done.
   */
  wake(): void {
    if (!this.o.feed) this.look();
  }

  /**
   * Looks at the jobs table for work and claims what this node has room for. Returns at once: the
   * claims run behind it, one look at a time (a look asked for during one is answered by its loop).
   */
  private look(): void {
    if (this.stopping) return;
    if (this.ticking) {
      // A job may have been queued after this look found none: look once more when it ends.
      this.wakeAgain = true;
      return;
    }
    this.ticking = true;
    this.wakeAgain = false;
    this.claimWhileFree()
      .catch((error) => this.o.log(`the scheduler could not claim a job: ${(error as Error).stack ?? error}`))
      .finally(() => {
        this.ticking = false;
        if (this.wakeAgain) this.look();
      });
  }

  private async claimWhileFree(): Promise<void> {
    while (this.running.size < this.o.pool.size && !this.stopping) {
      const now = this.o.clock.now();
      const job = await claimNextJob(this.o.conn, { owner: this.owner, kinds: [...this.kinds.keys()], now, lastServed: this.lastServed });
      if (!job) break;
      this.lastServed.set(job.userId, now);
      void this.runClaimed(job);
    }
  }

  /** Runs a job this scheduler claimed to its end (or until its claim is lost), then lets go of it. Never rejects. */
  private runClaimed(job: JobRow): Promise<void> {
    this.running.set(job.id, { runId: null });
    // Renewed while the job runs, so the claim outlives any step however long.
    const renewal = setInterval(() => this.renew(job.id), RENEW_EVERY_MS);
    return this.runJob(job.id)
      .catch((error) => this.o.log(`job ${job.id} stopped on an unexpected error: ${(error as Error).stack ?? error}`))
      .finally(async () => {
        clearInterval(renewal);
        await releaseLease(this.o.conn, job.id, this.owner).catch(() => {});
        this.running.delete(job.id);
        // A worker is free: look at the table for the next job at once, round-robin across accounts
        // (with a feed too: a message may be waiting out a "not now", and the table knows every job).
        setTimeout(() => this.look(), 0);
      });
  }

  /**
   * Extends the job's claim. A claim found lost (this node stalled past its lease and another
   * took the job over) stops the step in progress: only the new holder may run and settle it.
   */
  private renew(jobId: string): void {
    renewLease(this.o.conn, jobId, this.owner, this.o.clock.now())
      .then((held) => {
        if (held) return;
        this.o.log(`job ${jobId}: this node's claim was taken over or the job canceled; its step here is stopped`);
        const runId = this.running.get(jobId)?.runId;
        if (runId) this.o.pool.cancel(runId);
      })
      .catch(() => {});
  }

  /** Cancels these jobs if unfinished; a step in progress is stopped by killing its worker. */
  async cancel(jobIds: string[]): Promise<void> {
    if (!jobIds.length) return;
    const active = await cancelUnfinished(this.o.conn, jobIds, this.o.clock.now());
    for (const id of active) {
      const runId = this.running.get(id)?.runId;
      if (runId) this.o.pool.cancel(runId);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await this.o.pool.stop();
  }

  private async runJob(jobId: string): Promise<void> {
    for (;;) {
      const job = await loadJob(this.o.conn, jobId);
      if (!job || (job.status !== "queued" && job.status !== "processing") || this.stopping) return;
      const kind = this.kinds.get(job.kind)!;
      const step = job.nextStep;
      const fence: StepFence = { owner: this.owner, step, stepAttempts: job.stepAttempts };
      if (step === null || !kind.isStep(step)) {
        await this.fail(job, fence, "invalid_step", `The job has no valid next step (${step}).`);
        return;
      }
      const runId = randomId("run");
      const input = await kind.stepInput(this.o.conn, job, step, runId);
      if (!input) return; // its subject is gone (deleted meanwhile)
      const now = this.o.clock.now();
      const started = await withTx(this.o.conn, async (tx) => {
        if (!(await holdsStep(tx, jobId, fence))) return false;
        await updateJob(tx, jobId, {
          status: "processing",
          stage: kind.stageOf(step),
          startedAt: job.startedAt ?? now,
          // A retried or resumed step starts over, but the job's progress never goes back.
          progress: Math.max(job.progress ?? 0, await kind.progress(tx, job, step, 0)),
        });
        await kind.onStepStarted(tx, job, step, now);
        return true;
      });
      if (!started) return this.lost(jobId, step);

      this.running.set(jobId, { runId });
      const stepStarted = performance.now();
      const outcome = await this.o.pool.run(input, (fraction) => this.reportProgress(kind, job, step, fraction), this.o.stepTimeoutMs);
      this.running.set(jobId, { runId: null });
      this.o.onStepFinished?.(job.kind, step, outcome.kind, (performance.now() - stepStarted) / 1000);

      const current = await loadJob(this.o.conn, jobId);
      if (!current || current.status !== "processing" || outcome.kind === "canceled") return;
      if (outcome.kind === "failed") {
        if (!(await this.retryOrFail(current, fence, outcome))) return;
        continue;
      }
      if ((await this.advance(kind, current, fence, step, outcome)) === "finished") return;
    }
  }

  /** The claim went to another scheduler before this one could write: it drops its part. */
  private lost(jobId: string, step: string | null): void {
    this.o.log(`job ${jobId}: step ${step} was not settled here: another node holds the job now`);
  }

  private reportProgress(kind: JobKind, job: JobRow, step: string, fraction: number): void {
    kind
      .progress(this.o.conn, job, step, fraction)
      .then((value) => raiseProgress(this.o.conn, job.id, value))
      .catch((error) => this.o.log(`job ${job.id}: progress not recorded: ${(error as Error).message}`));
  }

  /** Retries a retryable failure while attempts remain; answers false when the job failed instead. */
  private async retryOrFail(job: JobRow, fence: StepFence, outcome: Extract<StepOutcome, { kind: "failed" }>): Promise<boolean> {
    const attempts = job.stepAttempts + 1;
    if (outcome.retryable && attempts < this.o.maxStepAttempts) {
      this.o.log(
        `job ${job.id} step ${job.nextStep} failed (${outcome.code}: ${outcome.message})${detailSuffix(outcome.detail)}; try ${attempts + 1} of ${this.o.maxStepAttempts}`,
      );
      const retried = await withTx(this.o.conn, async (tx) => {
        if (!(await holdsStep(tx, job.id, fence))) return false;
        await updateJob(tx, job.id, { stepAttempts: attempts });
        return true;
      });
      if (!retried) this.lost(job.id, fence.step);
      return retried;
    }
    await this.fail(job, fence, outcome.code, outcome.message, outcome.detail);
    return false;
  }

  private async fail(job: JobRow, fence: StepFence, code: string, rawMessage: string, detail?: string): Promise<void> {
    const now = this.o.clock.now();
    // The last guard before the client: a message naming a server path is replaced by its code's sentence.
    const { message, withheld } = publicJobMessage(code, rawMessage, this.o.privatePaths);
    const kind = this.kinds.get(job.kind)!;
    const failed = await withTx(this.o.conn, async (tx) => {
      if (!(await holdsStep(tx, job.id, fence))) return false;
      await updateJob(tx, job.id, { status: "failed", errorCode: code, errorMessage: message, finishedAt: now });
      await kind.onFailed(tx, job, now);
      return true;
    });
    if (!failed) return this.lost(job.id, fence.step);
    this.o.log(`job ${job.id} failed: ${code}: ${message}${detailSuffix([withheld ? rawMessage : "", detail ?? ""].filter(Boolean).join(" | "))}`);
  }

  /** Applies a step's result and moves the job on, in one transaction. */
  private async advance(kind: JobKind, job: JobRow, fence: StepFence, step: string, outcome: Extract<StepOutcome, { kind: "done" }>): Promise<"continue" | "finished"> {
    const now = this.o.clock.now();
    const moved = await withTx(this.o.conn, async (tx) => {
      if (!(await holdsStep(tx, job.id, fence))) return null;
      const refused = (await kind.admitResult?.(tx, job, outcome.result, now)) ?? null;
      if (refused) {
        await updateJob(tx, job.id, { status: "failed", nextStep: null, errorCode: refused.code, errorMessage: refused.message, finishedAt: now });
        await kind.onFailed(tx, job, now);
        return { refused, next: null };
      }
      const next = await kind.stepAfter(tx, job, step);
      await updateJob(tx, job.id, {
        nextStep: next,
        stepAttempts: 0,
        stage: next ? kind.stageOf(next) : "done",
        progress: next ? await kind.progress(tx, job, next, 0) : 1,
        ...(next ? {} : { status: "completed" as const, finishedAt: now }),
      });
      // After the job row moved on, so the events they emit show the job as it now is.
      await kind.onStepDone(tx, job, outcome.result, now);
      if (!next) await kind.onCompleted(tx, job, now);
      return { refused: null, next };
    });
    if (!moved) {
      this.lost(job.id, step);
      return "finished";
    }
    if (moved.refused) {
      this.o.log(`job ${job.id} failed: ${moved.refused.code}: ${moved.refused.message}`);
      return "finished";
    }
    return moved.next ? "continue" : "finished";
  }
}

/** Raw failure text for the server log line, on one line. */
function detailSuffix(detail: string | undefined): string {
  return detail ? ` [detail: ${detail.replace(/\s*\n\s*/g, " | ")}]` : "";
}
