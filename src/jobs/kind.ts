import type { z } from "zod";
import type { Conn, TxConn } from "../db/conn.ts";
import type { StepInput, StepResult } from "../worker/protocol.ts";
import type { JobRow } from "./query.ts";
import type { JobPayload } from "./table.ts";

/** A job's public stage (SPEC 3): "queued", "done", or one its kind declared. */
export type JobStage = string;

/**
 * What a job kind declares about itself, from its own domain folder (meetings/processing-job.ts,
 * documents/generation-job.ts): its name, the public stages its steps show as, and its payload:
 * the kind's own data on each job (jobs.payload), validated by `payload` when a job is queued
 * and when the kind reads it back. jobs/ holds no kind's name, stage or column: a new kind
 * declares itself and registers its `JobKind` with the scheduler (service.ts), which is what the
 * API's job schemas list (`registeredJobKinds`).
 */
export interface JobKindDeclaration<P extends JobPayload = JobPayload> {
  readonly kind: string;
  /** Its public stages, in the order its steps reach them ("queued" and "done" are every job's). */
  readonly stages: readonly string[];
  /** Validates the payload: a job queued with another shape is refused, one read back is typed. */
  readonly payload: z.ZodType<P>;
  /**
   * True for a kind of the service's own (a live transcript while recording): its jobs hold no
   * processing slot of the account (SPEC 8, rule 2) and the API never shows it (its job schemas
   * leave it out; such jobs are the web app's channel). Default false.
   */
  readonly internal?: boolean;
}

const slotless = new Set<string>();

/**
 * Types a kind's declaration (nothing is registered until its `JobKind` is: `registerJobKinds`);
 * a kind that holds no slot is known as such from here, on every node that imports it.
 */
export function declareJobKind<P extends JobPayload>(declaration: JobKindDeclaration<P>): JobKindDeclaration<P> {
  if (declaration.internal) slotless.add(declaration.kind);
  return declaration;
}

/** The kinds declared to hold no processing slot (`busySlotsIn` leaves their jobs out). */
export function slotlessJobKinds(): string[] {
  return [...slotless];
}

/** What the queue and the API need of a declaration: the kind's name and stages. */
export type JobKindName = Pick<JobKindDeclaration, "kind" | "stages" | "internal">;

const registered = new Map<string, JobKindName>();

/**
 * Registers job kinds, in order (the scheduler registers the kinds it runs): the API's job
 * schemas list their names and stages in that order.
 */
export function registerJobKinds(declarations: readonly JobKindName[]): void {
  for (const declaration of declarations) {
    const known = registered.get(declaration.kind);
    if (known && known !== declaration) throw new Error(`two job kinds are named ${declaration.kind}`);
    registered.set(declaration.kind, declaration);
  }
}

/** The job kinds registered so far, in registration order. */
export function registeredJobKinds(): readonly JobKindName[] {
  return [...registered.values()];
}

/** A job's payload as its kind declares it (throws when the stored JSON is not that shape). */
export function payloadOf<P extends JobPayload>(declaration: JobKindDeclaration<P>, job: Pick<JobRow, "kind" | "payload">): P {
  if (job.kind !== declaration.kind) throw new Error(`a ${job.kind} job was read as a ${declaration.kind} job`);
  return declaration.payload.parse(job.payload);
}

/**
 * A kind of job, declared in its own domain folder (meetings/processing.ts,
 * documents/generation.ts) and registered with the scheduler. The scheduler knows claims,
 * leases, steps, retries, timeouts, progress and the worker pool; the kind knows what its steps
 * are, what the worker needs for each, and what a finished or failed step means for its domain.
 * Every `tx` hook runs inside the transaction that moves the job on (an open `TxConn`: pass it to
 * every store call), so the domain's change (and the event it emits) commits exactly with the job's.
 */
export interface JobKind {
  /** Its name, stages and payload (its `*-job.ts` declaration). */
  readonly declaration: JobKindName;
  /** Whether `step` is one of this kind's steps (a stored next_step is checked before running). */
  isStep(step: string): boolean;
  /** The public stage (SPEC 3) a step shows as: one of its declaration's stages. */
  stageOf(step: string): JobStage;
  /** Overall progress of the job when `step` is `fraction` done, 0 to 1. */
  progress(c: Conn, job: JobRow, step: string, fraction: number): Promise<number>;
  /** The step after `step`, or null when the job is done. */
  stepAfter(c: Conn, job: JobRow, step: string): Promise<string | null>;
  /**
   * What the worker needs to run the step, or null when the job's subject is gone (a deleted
   * meeting): the job then stops without running it.
   */
  stepInput(c: Conn, job: JobRow, step: string, runId: string): Promise<StepInput | null>;
  /** A step starts (or resumes). */
  onStepStarted(tx: TxConn, job: JobRow, step: string, now: number): Promise<void>;
  /**
   * A step finished and its result shows what the job will really cost (a recording's decoded
   * length): the kind re-estimates what the job reserves, or answers why it cannot go on (the
   * account cannot pay that much); the job then fails with that error, before its next step.
   * Runs first in the transaction that would move the job on.
   */
  admitResult?(tx: TxConn, job: JobRow, result: StepResult, now: number): Promise<{ code: string; message: string } | null>;
  /** A step finished: store its result. */
  onStepDone(tx: TxConn, job: JobRow, result: StepResult, now: number): Promise<void>;
  /** The last step finished; the job row already says completed. */
  onCompleted(tx: TxConn, job: JobRow, now: number): Promise<void>;
  /** The job failed for good; the job row already carries the error. */
  onFailed(tx: TxConn, job: JobRow, now: number): Promise<void>;
}
