import type { Queryable } from "../db/client.ts";
import type { StepInput, StepResult } from "../worker/protocol.ts";
import type { JobRow } from "./query.ts";
import type { JOB_KINDS, JOB_STAGES } from "./table.ts";

export type JobStage = (typeof JOB_STAGES)[number];

/**
 * A kind of job, declared in its own domain folder (meetings/processing.ts, later
 * documents/generation.ts) and registered with the scheduler. The scheduler knows claims,
 * leases, steps, retries, timeouts, progress and the worker pool; the kind knows what its steps
 * are, what the worker needs for each, and what a finished or failed step means for its domain.
 * Every `tx` callback runs inside the transaction that moves the job on, so the domain's change
 * (and the event it emits) commits exactly with the job's.
 */
export interface JobKind {
  readonly kind: (typeof JOB_KINDS)[number];
  /** Whether `step` is one of this kind's steps (a stored next_step is checked before running). */
  isStep(step: string): boolean;
  /** The public stage (SPEC 3) a step shows as. */
  stageOf(step: string): JobStage;
  /** Overall progress of the job when `step` is `fraction` done, 0 to 1. */
  progress(db: Queryable, job: JobRow, step: string, fraction: number): number;
  /** The step after `step`, or null when the job is done. */
  stepAfter(db: Queryable, job: JobRow, step: string): string | null;
  /**
   * What the worker needs to run the step, or null when the job's subject is gone (a deleted
   * meeting): the job then stops without running it.
   */
  stepInput(db: Queryable, job: JobRow, step: string, runId: string): StepInput | null;
  /** A step starts (or resumes). */
  onStepStarted(tx: Queryable, job: JobRow, step: string, now: number): void;
  /**
   * A step finished and its result shows what the job will really cost (a recording's decoded
   * length): the kind re-estimates what the job reserves, or answers why it cannot go on (the
   * account cannot pay that much); the job then fails with that error, before its next step.
   * Runs first in the transaction that would move the job on.
   */
  admitResult?(tx: Queryable, job: JobRow, result: StepResult, now: number): { code: string; message: string } | null;
  /** A step finished: store its result. */
  onStepDone(tx: Queryable, job: JobRow, result: StepResult, now: number): void;
  /** The last step finished; the job row already says completed. */
  onCompleted(tx: Queryable, job: JobRow, now: number): void;
  /** The job failed for good; the job row already carries the error. */
  onFailed(tx: Queryable, job: JobRow, now: number): void;
}
