import { and, count, eq, inArray, sql } from "drizzle-orm";
import { existsSync, readFileSync } from "node:fs";
import type { Db } from "../db/client.ts";
import { publicJobMessage } from "../errors/public-message.ts";
import { emitEvent } from "../events/service.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { renderMeeting } from "../meetings/render.ts";
import { reindexMeeting } from "../meetings/search-index.ts";
import { meetings, participants, summaries, transcripts } from "../meetings/table.ts";
import { recordingPath } from "../storage/paths.ts";
import type { StepInput, StepResult } from "../worker/protocol.ts";
import { claimNextJob, LEASE_MS, releaseAllLeases, releaseLease, renewLease } from "./claims.ts";
import { renderJob, type JobRow } from "./query.ts";
import { isMeetingStep, overallProgress, stageOf, stepAfter, type MeetingStep } from "./steps.ts";
import { jobs } from "./table.ts";
import type { StepOutcome, WorkerPool } from "./worker-pool.ts";

export interface SchedulerOptions {
  db: Db;
  pool: WorkerPool;
  dataDir: string;
  clock: Clock;
  stepTimeoutMs: number;
  /** Tries of one step before the job fails (a crash or a retryable engine error counts as one). */
  maxStepAttempts: number;
  publicApiUrl(): string;
  log(line: string): void;
}

type MeetingRow = typeof meetings.$inferSelect;

/**
 * The job queue is the jobs table. The scheduler runs as many jobs at once as the worker pool
 * has workers, one step at a time, recording after each step which step comes next. Jobs a
 * crash or restart left in processing are picked up again from their next step.
 */
export class Scheduler {
  private readonly running = new Map<string, { runId: string | null }>();
  /** This scheduler's name on the jobs it claims (jobs.lease_owner). */
  private readonly owner = randomId("sched");
  /** When each account last had a job claimed: the round-robin order. */
  private readonly lastServed = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopping = false;
  private ticking = false;

  constructor(private readonly o: SchedulerOptions) {}

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
        const job = claimNextJob(this.o.db, { owner: this.owner, kind: "meeting_processing", now, lastServed: this.lastServed });
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

  /** Cancels the meeting's unfinished jobs; a step in progress is stopped by killing its worker. */
  cancelMeeting(meetingId: string): void {
    const now = this.o.clock.now();
    const active = this.o.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.meetingId, meetingId), inArray(jobs.status, ["queued", "processing"])))
      .all();
    for (const { id } of active) {
      this.o.db.update(jobs).set({ status: "canceled", finishedAt: now }).where(eq(jobs.id, id)).run();
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
      const meeting = this.o.db.select().from(meetings).where(eq(meetings.id, job.meetingId!)).get();
      if (!meeting) return;
      const step = job.nextStep;
      if (!isMeetingStep(step)) {
        this.fail(job, "invalid_step", `The job has no valid next step (${step}).`);
        return;
      }
      const now = this.o.clock.now();
      this.o.db.transaction((tx) => {
        tx.update(jobs)
          .set({
            status: "processing",
            stage: stageOf(step),
            startedAt: job.startedAt ?? now,
            // A retried or resumed step starts over, but the job's progress never goes back.
            progress: Math.max(job.progress ?? 0, overallProgress(step, 0, this.shape(job, meeting))),
          })
          .where(eq(jobs.id, jobId))
          .run();
        tx.update(meetings).set({ status: "processing", updatedAt: now }).where(eq(meetings.id, meeting.id)).run();
      });

      const runId = randomId("run");
      this.running.set(jobId, { runId });
      const outcome = await this.o.pool.run(
        this.stepInput(runId, step, job, meeting),
        (fraction) => this.reportProgress(jobId, step, fraction, this.shape(job, meeting)),
        this.o.stepTimeoutMs,
      );
      this.running.set(jobId, { runId: null });

      const current = this.loadJob(jobId);
      if (!current || current.status !== "processing" || outcome.kind === "canceled") return;
      if (outcome.kind === "failed") {
        if (!this.retryOrFail(current, outcome)) return;
        continue;
      }
      if (this.apply(current, meeting, step, outcome.result) === "finished") return;
    }
  }

  private shape(job: JobRow, meeting: MeetingRow) {
    return { hasDownload: meeting.audioUrl !== null, transcribeOnly: job.transcribeOnly === true };
  }

  private reportProgress(jobId: string, step: MeetingStep, fraction: number, shape: { hasDownload: boolean; transcribeOnly: boolean }): void {
    this.o.db
      .update(jobs)
      .set({ progress: sql`max(coalesce(${jobs.progress}, 0), ${overallProgress(step, fraction, shape)})` })
      .where(and(eq(jobs.id, jobId), eq(jobs.status, "processing")))
      .run();
  }

  private stepInput(runId: string, step: MeetingStep, job: JobRow, meeting: MeetingRow): StepInput {
    const participantCount = this.o.db.select({ n: count() }).from(participants).where(eq(participants.meetingId, meeting.id)).get()?.n ?? 0;
    return {
      runId,
      step,
      jobId: job.id,
      meetingId: meeting.id,
      dataDir: this.o.dataDir,
      recordingPath: recordingPath(this.o.dataDir, meeting.id),
      audioUrl: meeting.audioUrl,
      language: meeting.requestedLanguage === "auto" ? null : meeting.requestedLanguage,
      transcribeOnly: job.transcribeOnly === true,
      solo: meeting.recordingType === "solo",
      minSpeakers: meeting.minSpeakers,
      maxSpeakers: meeting.maxSpeakers,
      title: meeting.titleSource === "user" ? meeting.title : null,
      participantCount,
    };
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

  private event(type: Parameters<typeof emitEvent>[1]["type"], jobId: string, meetingId: string, userId: string, now: number, tx: Db) {
    const job = tx.select().from(jobs).where(eq(jobs.id, jobId)).get()!;
    const meeting = tx.select().from(meetings).where(eq(meetings.id, meetingId)).get()!;
    emitEvent(tx, { userId, type, now, meetingId, object: { ...renderJob(job), meeting: renderMeeting(tx, meeting, this.o.publicApiUrl()) } });
  }

  private fail(job: JobRow, code: string, rawMessage: string, detail?: string): void {
    const now = this.o.clock.now();
    // The last guard before the client: a message naming a server path is replaced by its code's sentence.
    const { message, withheld } = publicJobMessage(code, rawMessage, [this.o.dataDir]);
    this.o.db.transaction((tx) => {
      tx.update(jobs)
        .set({ status: "failed", errorCode: code, errorMessage: message, finishedAt: now })
        .where(eq(jobs.id, job.id))
        .run();
      tx.update(meetings).set({ status: "failed", updatedAt: now }).where(eq(meetings.id, job.meetingId!)).run();
      const transcribed = tx.select({ id: transcripts.meetingId }).from(transcripts).where(eq(transcripts.meetingId, job.meetingId!)).get();
      this.event(transcribed ? "processing.failed" : "transcription.failed", job.id, job.meetingId!, job.userId, now, tx as unknown as Db);
    });
    this.o.log(`job ${job.id} failed: ${code}: ${message}${detailSuffix([withheld ? rawMessage : "", detail ?? ""].filter(Boolean).join(" | "))}`);
  }

  /** Stores a step's result and moves the job on, in one transaction. */
  private apply(job: JobRow, meeting: MeetingRow, step: MeetingStep, result: StepResult): "continue" | "finished" {
    const now = this.o.clock.now();
    const next = stepAfter(step, job.transcribeOnly === true);
    let finished = false;
    this.o.db.transaction((txRaw) => {
      const tx = txRaw as unknown as Db;
      if (result.step === "decode") {
        tx.update(meetings).set({ durationSeconds: Math.round(result.durationSeconds), updatedAt: now }).where(eq(meetings.id, meeting.id)).run();
      }
      if (result.step === "transcribe" && meeting.requestedLanguage === "auto") {
        tx.update(meetings).set({ language: result.language, updatedAt: now }).where(eq(meetings.id, meeting.id)).run();
      }
      if (result.step === "diarize") this.storeTranscript(tx, meeting, result.transcriptPath, now);
      if (result.step === "summarize") this.storeSummary(tx, meeting, result.report, now);

      tx.update(jobs)
        .set({
          nextStep: next,
          stepAttempts: 0,
          stage: next ? stageOf(next) : "done",
          progress: next ? overallProgress(next, 0, this.shape(job, meeting)) : 1,
          ...(next ? {} : { status: "completed" as const, finishedAt: now }),
        })
        .where(eq(jobs.id, job.id))
        .run();
      if (result.step === "diarize") this.event("transcription.completed", job.id, meeting.id, job.userId, now, tx);
      if (!next) {
        tx.update(meetings).set({ status: "completed", updatedAt: now }).where(eq(meetings.id, meeting.id)).run();
        this.event("processing.completed", job.id, meeting.id, job.userId, now, tx);
        finished = true;
      }
    });
    return finished ? "finished" : "continue";
  }

  private storeTranscript(tx: Db, meeting: MeetingRow, path: string, now: number): void {
    if (!existsSync(path)) throw new Error(`transcript file ${path} is missing`);
    const transcript = JSON.parse(readFileSync(path, "utf8")) as {
      language: string | null;
      model: string;
      durationSeconds: number;
      speakers: string[];
      segments: unknown[];
      turns?: unknown[];
    };
    const values = {
      meetingId: meeting.id,
      language: transcript.language,
      durationSeconds: Math.round(transcript.durationSeconds),
      model: transcript.model,
      speakers: JSON.stringify(transcript.speakers),
      segments: JSON.stringify(transcript.segments),
      speakerTurns: JSON.stringify(transcript.turns ?? []),
      createdAt: now,
    };
    tx.insert(transcripts).values(values).onConflictDoUpdate({ target: transcripts.meetingId, set: values }).run();
    reindexMeeting(tx, meeting.id);
  }

  private storeSummary(tx: Db, meeting: MeetingRow, report: Extract<StepResult, { step: "summarize" }>["report"], now: number): void {
    const values = {
      meetingId: meeting.id,
      title: report.title,
      language: report.language,
      markdown: report.markdown,
      structured: JSON.stringify(report.structured),
      model: report.model,
      createdAt: now,
      updatedAt: now,
    };
    tx.insert(summaries).values(values).onConflictDoUpdate({ target: summaries.meetingId, set: { ...values, createdAt: undefined } }).run();
    // The AI title replaces a title taken from the file name, never one the client gave or pinned.
    const current = tx.select({ titleSource: meetings.titleSource }).from(meetings).where(eq(meetings.id, meeting.id)).get();
    if (current && current.titleSource !== "user" && report.title.trim()) {
      tx.update(meetings).set({ title: report.title.trim().slice(0, 300), titleSource: "ai", updatedAt: now }).where(eq(meetings.id, meeting.id)).run();
    }
    reindexMeeting(tx, meeting.id);
  }
}

/** Raw failure text for the server log line, on one line. */
function detailSuffix(detail: string | undefined): string {
  return detail ? ` [detail: ${detail.replace(/\s*\n\s*/g, " | ")}]` : "";
}
