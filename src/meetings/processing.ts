import { and, count, eq, inArray } from "drizzle-orm";
import { existsSync, readFileSync } from "node:fs";
import { findUserById } from "../auth/users.ts";
import type { Queryable } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { isJobErrorCode, JOB_ERROR_CATALOGUE } from "../errors/job-codes.ts";
import { admitJob } from "../usage/admission.ts";
import { expectedDocument, expectedProcessing } from "../usage/estimate.ts";
import type { Consumption, UsageMeter } from "../usage/meter.ts";
import { reservationOf, reserve } from "../usage/reservations.ts";
import type { BillingSettings } from "../usage/settings.ts";
import { spawnDocumentJobs, templatesRequested } from "../documents/spawn.ts";
import type { TemplateCatalogue } from "../templates/catalogue.ts";
import { emitEvent, type EventType } from "../events/service.ts";
import type { JobKind, JobStage } from "../jobs/kind.ts";
import { renderJob, type JobRow } from "../jobs/query.ts";
import { jobs } from "../jobs/table.ts";
import { recordingPath } from "../storage/paths.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { MEETING_STEPS, type MeetingStep, type MeetingStepInput, type StepResult } from "../worker/protocol.ts";
import { forgetCorrections } from "./corrections-store.ts";
import { renderMeeting } from "./render.ts";
import { reindexMeeting } from "./search-index.ts";
import type { MeetingRow } from "./store.ts";
import { meetings, participants, reports, transcripts } from "./table.ts";

type ReportResult = Extract<StepResult, { step: "summarize" }>["report"];

/** Share of the whole job each step stands for, so progress moves steadily from 0 to 1. */
const WEIGHTS: Record<MeetingStep, number> = { download: 0.1, decode: 0.05, transcribe: 0.55, diarize: 0.1, summarize: 0.2 };

export function firstMeetingStep(source: "upload" | "url"): MeetingStep {
  return source === "url" ? "download" : "decode";
}

function isMeetingStep(step: string): step is MeetingStep {
  return (MEETING_STEPS as readonly string[]).includes(step);
}

/** The steps this job runs: download only for audio_url, summarize only without transcribe_only. */
function stepsOf(job: JobRow, hasDownload: boolean): MeetingStep[] {
  if (job.reportOnly === true) return ["summarize"];
  return MEETING_STEPS.filter((s) => (s !== "download" || hasDownload) && (s !== "summarize" || job.transcribeOnly !== true));
}

/** Overall progress when `step` is `fraction` done, over the steps the job runs. */
export function overallProgress(step: MeetingStep, fraction: number, steps: readonly MeetingStep[]): number {
  const total = steps.reduce((sum, s) => sum + WEIGHTS[s], 0);
  let done = 0;
  for (const s of steps) {
    if (s === step) break;
    done += WEIGHTS[s];
  }
  const value = (done + WEIGHTS[step] * Math.min(1, Math.max(0, fraction))) / total;
  return Math.round(value * 1000) / 1000;
}

/**
 * meeting_processing: download (audio_url only), decode, transcribe, diarize, then summarize
 * (unless transcribe_only). The meeting's status follows its job, the transcript and the report
 * are stored as their steps finish, and the events of SPEC 6 are emitted in the same transactions.
 * The document jobs a meeting asked for at creation are queued when the report is stored.
 *
 * Events name the job, so only the API's jobs emit them: a web app job is one GET /v1/jobs/{id}
 * does not answer. A report written again (report_only on a completed meeting) leaves the
 * meeting completed, its report readable until replaced and its API job the one shown.
 */
export function meetingProcessing(deps: {
  dataDir: string;
  publicApiUrl(): string;
  templates: Pick<TemplateCatalogue, "get" | "templates">;
  /** Debits what a finished step consumed (usage/meter.ts). */
  meter: UsageMeter;
  /** Re-estimates what a job reserves once its recording is decoded (usage/admission.ts). */
  billing: BillingSettings;
}): JobKind {
  const meetingOf = (db: Queryable, job: JobRow): MeetingRow | undefined =>
    job.meetingId === null ? undefined : db.select().from(meetings).where(eq(meetings.id, job.meetingId)).get();
  // A job with no download step is an upload: its progress is shared over four or five steps.
  const hasDownload = (db: Queryable, job: JobRow) => meetingOf(db, job)?.audioUrl != null;

  const emit = (tx: Queryable, type: EventType, job: JobRow, now: number) => {
    if (job.source !== "api") return;
    const current = tx.select().from(jobs).where(eq(jobs.id, job.id)).get()!;
    const meeting = meetingOf(tx, job)!;
    emitEvent(tx, {
      userId: job.userId,
      type,
      now,
      meetingId: meeting.id,
      object: { ...renderJob(current), meeting: renderMeeting(tx, meeting, deps.publicApiUrl()) },
    });
  };
  const setMeeting = (tx: Queryable, job: JobRow, values: Partial<typeof meetings.$inferInsert>) =>
    tx.update(meetings).set(values).where(eq(meetings.id, job.meetingId!)).run();
  // A report written again: the meeting stays completed whatever becomes of the new report.
  const rewritesReport = (tx: Queryable, job: JobRow) => job.reportOnly === true && meetingOf(tx, job)?.status === "completed";

  const stepsOfJob = (db: Queryable, job: JobRow) => stepsOf(job, hasDownload(db, job));
  const meter = (tx: Queryable, job: JobRow, meetingId: string, now: number, what: Pick<Consumption, "operation" | "audioSeconds" | "promptTokens" | "completionTokens" | "model">) =>
    deps.meter(tx, { ...what, userId: job.userId, plan: findUserById(tx, job.userId)?.plan ?? "free", channel: job.source, meetingId, jobId: job.id }, now);

  return {
    kind: "meeting_processing",
    isStep: isMeetingStep,
    stageOf(step): JobStage {
      if (step === "download") return "downloading";
      if (step === "summarize") return "summarizing";
      return "transcribing"; // decoding and diarization are part of transcribing
    },
    progress(db, job, step, fraction) {
      return overallProgress(step as MeetingStep, fraction, stepsOfJob(db, job));
    },
    stepAfter(db, job, step) {
      const steps = stepsOfJob(db, job);
      return steps[steps.indexOf(step as MeetingStep) + 1] ?? null;
    },
    stepInput(reader, job, step, runId): MeetingStepInput | null {
      const meeting = meetingOf(reader, job);
      if (!meeting) return null;
      const participantCount = reader.select({ n: count() }).from(participants).where(eq(participants.meetingId, meeting.id)).get()?.n ?? 0;
      return {
        kind: "meeting_processing",
        runId,
        step: step as MeetingStep,
        jobId: job.id,
        meetingId: meeting.id,
        dataDir: deps.dataDir,
        recordingPath: recordingPath(deps.dataDir, meeting.id),
        audioUrl: meeting.audioUrl,
        remuxJoinedWebm: meeting.source === "live_recording",
        language: meeting.requestedLanguage === "auto" ? null : meeting.requestedLanguage,
        transcribeOnly: job.transcribeOnly === true,
        solo: meeting.recordingType === "solo",
        minSpeakers: meeting.minSpeakers,
        maxSpeakers: meeting.maxSpeakers,
        title: meeting.titleSource === "user" ? meeting.title : null,
        participantCount,
      };
    },
    onStepStarted(tx, job, _step, now) {
      if (!rewritesReport(tx, job)) setMeeting(tx, job, { status: "processing", updatedAt: now });
    },
    admitResult(tx, job, result, now) {
      if (result.step !== "decode") return null;
      // The decoded length, not the container's word: what the job really is expected to cost.
      const account = { userId: job.userId, plan: findUserById(tx, job.userId)?.plan ?? "free" };
      const expected = expectedProcessing(deps.billing, { audioSeconds: result.durationSeconds, report: job.transcribeOnly !== true });
      const held = reservationOf(tx, job.id);
      const grows = !held || (job.source === "api" ? expected.cost > held.amountMinor : Math.ceil(expected.audioSeconds) > held.audioSeconds);
      try {
        if (grows) admitJob(tx, deps.billing, account, { jobId: job.id, channel: job.source }, expected, now);
        else reserve(tx, { jobId: job.id, userId: job.userId, channel: job.source }, expected, now);
        return null;
      } catch (error) {
        if (!(error instanceof ApiError) || !isJobErrorCode(error.code)) throw error;
        return { code: error.code, message: JOB_ERROR_CATALOGUE[error.code].message };
      }
    },
    onStepDone(tx, job, result, now) {
      const meeting = meetingOf(tx, job);
      if (!meeting) return;
      switch (result.step) {
        case "decode":
          setMeeting(tx, job, { durationSeconds: Math.round(result.durationSeconds), updatedAt: now });
          break;
        case "transcribe":
          if (meeting.requestedLanguage === "auto") setMeeting(tx, job, { language: result.language, updatedAt: now });
          break;
        case "diarize": {
          const transcript = storeTranscript(tx, meeting.id, result.transcriptPath, now);
          meter(tx, job, meeting.id, now, { operation: "transcription", audioSeconds: transcript.durationSeconds, model: transcript.model });
          emit(tx, "transcription.completed", job, now);
          break;
        }
        case "summarize":
          storeReport(tx, meeting.id, result.report, now);
          meter(tx, job, meeting.id, now, {
            operation: "report",
            promptTokens: result.report.usage.promptTokens,
            completionTokens: result.report.usage.completionTokens,
            model: result.report.model,
          });
          break;
      }
    },
    onCompleted(tx, job, now) {
      setMeeting(tx, job, { status: "completed", updatedAt: now });
      const meeting = meetingOf(tx, job);
      if (meeting && job.transcribeOnly !== true && job.reportOnly !== true) {
        // Before processing.completed, which carries their ids (document_job_ids).
        const templateIds = templatesRequested(deps.templates, meeting.documentTemplates, meeting.persona);
        const spawned = spawnDocumentJobs(tx, deps.templates, { id: job.id, userId: job.userId, meetingId: meeting.id, metadata: job.metadata }, templateIds, now);
        reserveSpawnedDocuments(tx, deps.billing, meeting.id, spawned, now);
      }
      emit(tx, "processing.completed", job, now);
    },
    onFailed(tx, job, now) {
      if (!meetingOf(tx, job) || rewritesReport(tx, job)) return;
      setMeeting(tx, job, { status: "failed", updatedAt: now });
      const transcribed = tx.select({ id: transcripts.meetingId }).from(transcripts).where(eq(transcripts.meetingId, job.meetingId!)).get();
      emit(tx, transcribed ? "processing.failed" : "transcription.failed", job, now);
    },
  };
}

/**
 * Documents a meeting asked for at creation were admitted with it (SPEC 8 rule 2): they are not
 * refused now, but each reserves its expected cost while it runs (written from the report), so
 * what they will spend counts against the next admissions as the meeting's reservation is released.
 */
function reserveSpawnedDocuments(tx: Queryable, billing: BillingSettings, meetingId: string, jobIds: string[], now: number): void {
  if (!jobIds.length) return;
  const reportChars = tx.select({ markdown: reports.markdown }).from(reports).where(eq(reports.meetingId, meetingId)).get()?.markdown.length ?? 0;
  const queued = tx
    .select({ id: jobs.id, userId: jobs.userId, source: jobs.source })
    .from(jobs)
    .where(and(inArray(jobs.id, jobIds), eq(jobs.status, "queued")))
    .all();
  for (const row of queued) reserve(tx, { jobId: row.id, userId: row.userId, channel: row.source }, expectedDocument(billing, reportChars), now);
}

/** The diarize step's transcript file into the transcripts table, and the search index. */
function storeTranscript(tx: Queryable, meetingId: string, path: string, now: number): StoredTranscript {
  if (!existsSync(path)) throw new Error("the transcript file of the diarize step is missing");
  const transcript = JSON.parse(readFileSync(path, "utf8")) as StoredTranscript;
  const values = {
    meetingId,
    language: transcript.language,
    durationSeconds: Math.round(transcript.durationSeconds),
    model: transcript.model,
    speakers: transcript.speakers,
    segments: transcript.segments,
    speakerTurns: transcript.turns,
    createdAt: now,
  };
  tx.insert(transcripts).values(values).onConflictDoUpdate({ target: transcripts.meetingId, set: values }).run();
  forgetCorrections(tx, meetingId);
  reindexMeeting(tx, meetingId);
  return transcript;
}

/** The summarize step's report into its table; the AI title replaces a title taken from a file name. */
function storeReport(tx: Queryable, meetingId: string, report: ReportResult, now: number): void {
  const values = {
    meetingId,
    title: report.title,
    language: report.language,
    markdown: report.markdown,
    structured: report.structured,
    model: report.model,
    createdAt: now,
    updatedAt: now,
  };
  tx.insert(reports).values(values).onConflictDoUpdate({ target: reports.meetingId, set: { ...values, createdAt: undefined } }).run();
  // Never a title the client gave or pinned.
  const current = tx.select({ titleSource: meetings.titleSource }).from(meetings).where(eq(meetings.id, meetingId)).get();
  if (current && current.titleSource !== "user" && report.title.trim()) {
    tx.update(meetings).set({ title: report.title.trim().slice(0, 300), titleSource: "ai", updatedAt: now }).where(eq(meetings.id, meetingId)).run();
  }
  reindexMeeting(tx, meetingId);
}
