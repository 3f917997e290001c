import type { JobQueue } from "../jobs/pg-boss-store.ts";
import { z } from "zod";
import { findUserById } from "../auth/user-store.ts";
import { run, type Conn, type TxConn } from "../db/conn.ts";
import { lockAccount } from "../db/sql.ts";
import { ApiError } from "../errors/api-error.ts";
import { isJobErrorCode, JOB_ERROR_CATALOGUE } from "../errors/job-codes.ts";
import { admitJob } from "../usage/admission-store.ts";
import { expectedDocument, expectedProcessing } from "../usage/estimate.ts";
import type { Consumption, UsageMeter } from "../usage/meter-store.ts";
import { reservationOf, reserve } from "../usage/reservation-store.ts";
import type { BillingSettings } from "../usage/settings.ts";
import { spawnDocumentJobs } from "../documents/generation-store.ts";
import { templatesRequested } from "../documents/spawn.ts";
import type { TemplateCatalogue } from "../templates/catalogue.ts";
import type { EventType } from "../events/types.ts";
import { emitEvent } from "../events/store.ts";
import type { JobKind, JobStage } from "../jobs/kind.ts";
import { renderJob, type JobRow } from "../jobs/query.ts";
import { loadJob, queuedAmong, setJobPayload } from "../jobs/store.ts";
import { DECODED_AUDIO, stepOutputName } from "../storage/paths.ts";
import type { Storage } from "../storage/storage.ts";
import type { StoredTranscript } from "../transcripts/types.ts";
import { MEETING_STEPS, type MeetingStep, type MeetingStepInput, type StepResult } from "../worker/protocol.ts";
import type { RedactionApplied } from "./redaction.ts";
import { storeRedactionApplied } from "./redaction-store.ts";
import { renderedMeetings } from "./render.ts";
import { meetingJobPayload, meetingProcessingJob, type MeetingJobPayload } from "./processing-job.ts";
import { promptFor } from "./vocabulary-store.ts";
import { writeSummarizeInput } from "./regenerate-report.ts";
import {
  findMeeting,
  hasTranscript,
  participantCount,
  participantNames,
  reportLength,
  storeReport,
  storeTranscript,
  updateMeeting,
  type ProcessedMeeting,
} from "./processing-store.ts";

/** Share of the whole job each step stands for, so progress moves steadily from 0 to 1. */
const WEIGHTS: Record<MeetingStep, number> = { download: 0.1, decode: 0.05, transcribe: 0.55, diarize: 0.1, redact: 0.05, summarize: 0.2 };

export function firstMeetingStep(source: "upload" | "url"): MeetingStep {
  return source === "url" ? "download" : "decode";
}

function isMeetingStep(step: string): step is MeetingStep {
  return (MEETING_STEPS as readonly string[]).includes(step);
}

/**
 * The steps this job runs: download only for audio_url, redact only when the meeting asked for
 * redaction (a text meeting's job too: redact then summarize), summarize only without transcribe_only.
 */
function stepsOf(job: MeetingJobPayload, hasDownload: boolean): MeetingStep[] {
  const redact = job.redact === true;
  if (job.reportOnly === true) return redact ? (job.transcribeOnly === true ? ["redact"] : ["redact", "summarize"]) : ["summarize"];
  return MEETING_STEPS.filter((s) => (s !== "download" || hasDownload) && (s !== "summarize" || job.transcribeOnly !== true) && (s !== "redact" || redact));
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
  /** Where the recording and the steps' outputs are (the worker is told its location). */
  storage: Storage;
  publicApiUrl(): string;
  templates: Pick<TemplateCatalogue, "get" | "templates">;
  /** Debits what a finished step consumed (usage/meter-store.ts). */
  meter: UsageMeter;
  /** Re-estimates what a job reserves once its recording is decoded (usage/admission-store.ts). */
  billing: BillingSettings;
  /** Where a queued job is announced to the workers (jobs/pg-boss-store.ts). */
  jobQueue: JobQueue;
}): JobKind {
  const meetingOf = async (c: Conn, job: JobRow): Promise<ProcessedMeeting | undefined> => (job.meetingId === null ? undefined : findMeeting(c, job.meetingId));
  // A job with no download step is an upload: its progress is shared over four or five steps.
  const hasDownload = async (c: Conn, job: JobRow) => (await meetingOf(c, job))?.audioUrl != null;

  const emit = async (tx: TxConn, type: EventType, job: JobRow, now: number) => {
    if (job.channel !== "api") return;
    const current = (await loadJob(tx, job.id))!;
    const meeting = (await findMeeting(tx, job.meetingId!))!;
    const [rendered] = await renderedMeetings(tx, [meeting], deps.publicApiUrl());
    await run(tx, async (q) =>
      emitEvent(q, {
        userId: job.userId,
        type,
        now,
        meetingId: meeting.id,
        object: { ...renderJob(current), meeting: rendered! },
      }),
    );
  };
  const setMeeting = (tx: TxConn, job: JobRow, values: Parameters<typeof updateMeeting>[2]) => updateMeeting(tx, job.meetingId!, values);
  // A report written again: the meeting stays completed whatever becomes of the new report.
  const rewritesReport = async (tx: TxConn, job: JobRow) => meetingJobPayload(job).reportOnly === true && (await meetingOf(tx, job))?.status === "completed";

  const stepsOfJob = async (c: Conn, job: JobRow) => stepsOf(meetingJobPayload(job), await hasDownload(c, job));
  const meter = async (q: Parameters<UsageMeter>[0], job: JobRow, meetingId: string, now: number, what: Pick<Consumption, "operation" | "audioSeconds" | "promptTokens" | "completionTokens" | "model">) =>
    deps.meter(q, { ...what, userId: job.userId, plan: (await findUserById(q, job.userId))?.plan ?? "free", channel: job.channel, meetingId, jobId: job.id }, now);

  /**
   * The transcript file of the diarize step (or of the redact step, which replaced it with its
   * redacted copy) into the database, metered, transcription.completed emitted. A text meeting's
   * redacted transcript (a report-only job) is neither metered nor announced: its text was given.
   */
  const storeProcessedTranscript = async (tx: TxConn, job: JobRow, meetingId: string, now: number, redacted?: { applied: RedactionApplied; metered: boolean }) => {
    const transcript = await readStoredTranscript(deps.storage, meetingId);
    const metered = redacted?.metered ?? true;
    const stored = await run(tx, async (q) => {
      // A correction or a PATCH of this account's meetings in flight waits (db/sql.ts): neither writes over the other.
      await lockAccount(q, job.userId);
      const stored = await storeTranscript(q, meetingId, transcript, now);
      if (redacted) await storeRedactionApplied(q, meetingId, redacted.applied);
      if (metered) await meter(q, job, meetingId, now, { operation: "transcription", audioSeconds: transcript.durationSeconds, model: transcript.model });
      return stored;
    });
    // The report is written from the words as stored (the glossary's terms), read from the step's file.
    if (stored !== transcript) await writeSummarizeInput(deps.storage, meetingId, stored);
    if (metered) await emit(tx, "transcription.completed", job, now);
  };

  return {
    declaration: meetingProcessingJob,
    isStep: isMeetingStep,
    stageOf(step): JobStage {
      if (step === "download") return "downloading";
      if (step === "summarize") return "summarizing";
      return "transcribing"; // decoding and diarization are part of transcribing
    },
    async progress(c, job, step, fraction) {
      return overallProgress(step as MeetingStep, fraction, await stepsOfJob(c, job));
    },
    async stepAfter(c, job, step) {
      const steps = await stepsOfJob(c, job);
      return steps[steps.indexOf(step as MeetingStep) + 1] ?? null;
    },
    async stepInput(c, job, step, runId): Promise<MeetingStepInput | null> {
      const meeting = await meetingOf(c, job);
      if (!meeting) return null;
      return {
        kind: "meeting_processing",
        runId,
        step: step as MeetingStep,
        jobId: job.id,
        meetingId: meeting.id,
        storageDir: deps.storage.location,
        audioUrl: meeting.audioUrl,
        remuxJoinedWebm: meeting.source === "live_recording",
        language: meeting.requestedLanguage === "auto" ? null : meeting.requestedLanguage,
        transcribeOnly: meetingJobPayload(job).transcribeOnly === true,
        solo: meeting.recordingType === "solo",
        minSpeakers: meeting.minSpeakers,
        maxSpeakers: meeting.maxSpeakers,
        title: meeting.titleSource === "user" ? meeting.title : null,
        participantCount: await participantCount(c, meeting.id),
        prompt: step === "transcribe" ? await promptFor(c, meeting) : null,
        redaction: meeting.redaction,
        participantNames: meeting.redaction !== null && (step === "redact" || step === "summarize") ? await participantNames(c, meeting.id) : [],
      };
    },
    async onStepStarted(tx, job, _step, now) {
      if (!(await rewritesReport(tx, job))) await setMeeting(tx, job, { status: "processing", updatedAt: now });
    },
    async admitResult(tx, job, result, now) {
      if (result.step !== "decode") return null;
      const transcribeOnly = meetingJobPayload(job).transcribeOnly === true;
      return run(tx, async (q) => {
        // The decoded length, not the container's word: what the job really is expected to cost.
        const account = { userId: job.userId, plan: (await findUserById(q, job.userId))?.plan ?? "free" };
        const expected = expectedProcessing(deps.billing, { audioSeconds: result.durationSeconds, report: !transcribeOnly });
        const held = await reservationOf(q, job.id);
        const grows = !held || (job.channel === "api" ? expected.cost > held.amountMinor : Math.ceil(expected.audioSeconds) > held.audioSeconds);
        try {
          if (grows) await admitJob(q, deps.billing, account, { jobId: job.id, channel: job.channel }, expected, now);
          else await reserve(q, { jobId: job.id, userId: job.userId, channel: job.channel }, expected, now);
          return null;
        } catch (error) {
          if (!(error instanceof ApiError) || !isJobErrorCode(error.code)) throw error;
          return { code: error.code, message: JOB_ERROR_CATALOGUE[error.code].message };
        }
      });
    },
    async onStepDone(tx, job, result, now) {
      const meeting = await meetingOf(tx, job);
      if (!meeting) return;
      switch (result.step) {
        case "decode":
          await setMeeting(tx, job, { durationSeconds: Math.round(result.durationSeconds), updatedAt: now });
          break;
        case "transcribe":
          if (meeting.requestedLanguage === "auto") await setMeeting(tx, job, { language: result.language, updatedAt: now });
          break;
        case "diarize":
          // A meeting to redact: nothing of this transcript reaches the database; the redact step's does.
          if (meetingJobPayload(job).redact === true) break;
          await storeProcessedTranscript(tx, job, meeting.id, now);
          break;
        case "redact": {
          const reportOnly = meetingJobPayload(job).reportOnly === true;
          await storeProcessedTranscript(tx, job, meeting.id, now, { applied: result.summary, metered: !reportOnly });
          break;
        }
        case "summarize":
          await run(tx, async (q) => {
            await lockAccount(q, job.userId);
            await storeReport(q, meeting.id, result.report, now);
            await meter(q, job, meeting.id, now, {
              operation: "report",
              promptTokens: result.report.usage.promptTokens,
              completionTokens: result.report.usage.completionTokens,
              model: result.report.model,
            });
          });
          break;
      }
    },
    async onCompleted(tx, job, now) {
      await setMeeting(tx, job, { status: "completed", updatedAt: now });
      const meeting = await meetingOf(tx, job);
      const payload = meetingJobPayload(job);
      // A report written again spawns nothing; a given transcript's first report is its meeting's processing.
      if (meeting && payload.transcribeOnly !== true && (payload.reportOnly !== true || payload.givenTranscript === true)) {
        // Before processing.completed, which carries their ids (document_job_ids).
        const templateIds = templatesRequested(deps.templates, meeting.documentTemplates, meeting.persona);
        const spawned = await run(tx, async (q) =>
          spawnDocumentJobs(q, deps.templates, { id: job.id, userId: job.userId, meetingId: meeting.id, metadata: job.metadata }, templateIds, now, deps.jobQueue),
        );
        if (spawned.length) {
          const current = (await loadJob(tx, job.id))!;
          await setJobPayload(tx, job.id, { ...meetingJobPayload(current), documentJobIds: spawned });
        }
        await reserveSpawnedDocuments(tx, deps.billing, meeting.id, spawned, now);
      }
      await emit(tx, "processing.completed", job, now);
    },
    async onFailed(tx, job, now) {
      const meeting = await meetingOf(tx, job);
      if (meeting && meetingJobPayload(job).redact === true && meeting.redactionApplied === null) await forgetUnredacted(deps.storage, meeting.id);
      if (!meeting || (await rewritesReport(tx, job))) return;
      await setMeeting(tx, job, { status: "failed", updatedAt: now });
      await emit(tx, (await hasTranscript(tx, job.meetingId!)) ? "processing.failed" : "transcription.failed", job, now);
    },
  };
}

/**
 * Documents a meeting asked for at creation were admitted with it (SPEC 8 rule 2): they are not
 * refused now, but each reserves its expected cost while it runs (written from the report), so
 * what they will spend counts against the next admissions as the meeting's reservation is released.
 */
async function reserveSpawnedDocuments(tx: TxConn, billing: BillingSettings, meetingId: string, jobIds: string[], now: number): Promise<void> {
  if (!jobIds.length) return;
  const reportChars = await reportLength(tx, meetingId);
  const queued = await queuedAmong(tx, jobIds);
  await run(tx, async (q) => {
    for (const row of queued) await reserve(q, { jobId: row.id, userId: row.userId, channel: row.channel }, expectedDocument(billing, reportChars), now);
  });
}

/**
 * A meeting to redact whose job failed (or was canceled) before its redact step finished: the
 * steps' files that hold its unredacted words, and its decoded audio (unsilenced), go now. The
 * recording stays as received, like any failed meeting's.
 */
async function forgetUnredacted(storage: Storage, meetingId: string): Promise<void> {
  for (const name of [stepOutputName("transcribe"), stepOutputName("transcript"), DECODED_AUDIO]) await storage.delete(meetingId, name);
}

const segment = { start: z.number(), end: z.number(), speaker: z.string() };
/** The diarize step's transcript file, as the worker writes it (worker/steps.ts). */
const storedTranscriptFile: z.ZodType<StoredTranscript> = z.looseObject({
  language: z.string().nullable(),
  model: z.string(),
  durationSeconds: z.number(),
  speakers: z.array(z.string()),
  segments: z.array(z.looseObject({ ...segment, text: z.string() })),
  turns: z.array(z.looseObject(segment)),
});

/** Reads the diarize step's transcript file from the storage, by name (the worker wrote it there, atomically). */
async function readStoredTranscript(storage: Storage, meetingId: string): Promise<StoredTranscript> {
  const bytes = await storage.get(meetingId, stepOutputName("transcript"));
  if (!bytes) throw new Error("the transcript file of the diarize step is missing");
  return storedTranscriptFile.parse(JSON.parse(new TextDecoder().decode(bytes)));
}
