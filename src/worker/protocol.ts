import type { DocumentInput, DocumentResult, TokenUsage } from "../engines/types.ts";
import type { RedactionRequest, RedactionSummary } from "../redaction/types.ts";

/**
 * The steps of meeting processing, in order: the worker runs them, the meeting kind sequences them.
 * The last one writes the report and keeps its old name, "summarize": step names are stored in the
 * jobs' next_step, label the per-step metrics and name the test engines' behaviours, so renaming it
 * would strand queued jobs and change the metrics (docs/decisions.md). "redact" runs only for a
 * meeting that asked for personal-data redaction (issue 23), between the transcript and the report.
 */
export const MEETING_STEPS = ["download", "decode", "transcribe", "diarize", "redact", "summarize"] as const;
export type MeetingStep = (typeof MEETING_STEPS)[number];

/** What a meeting step needs, all of it plain data: the worker process has no database. */
export interface MeetingStepInput {
  kind: "meeting_processing";
  runId: string;
  step: MeetingStep;
  jobId: string;
  meetingId: string;
  /**
   * The folder of meetings' files every node mounts (--storage-dir): the recording as stored (or
   * where the download step puts it), the decoded audio and the steps' outputs (storage/paths.ts).
   */
  storageDir: string;
  audioUrl: string | null;
  /** A live recording from the web app: joined WebM pieces, remuxed before decoding. */
  remuxJoinedWebm: boolean;
  language: string | null; // null = detect
  transcribeOnly: boolean;
  solo: boolean;
  minSpeakers: number | null;
  maxSpeakers: number | null;
  title: string | null;
  participantCount: number;
  /**
   * Whisper's initial prompt for the transcribe step: the meeting's own terms, then the account
   * glossary's, bounded to whisper's prompt budget (vocabulary/prompt.ts); null without any, and
   * for the other steps.
   */
  prompt: string | null;
  /**
   * Personal-data redaction asked for, or null. The redact step applies it to the transcript (and
   * the recording with audio); the summarize step runs the structured recognisers over the report too.
   */
  redaction: RedactionRequest | null;
  /** The participants' names: always persons to redact (redact step only; empty otherwise). */
  participantNames: string[];
}

/** document_generation has one step: the LLM writes the document. */
export const DOCUMENT_STEPS = ["generate"] as const;
export type DocumentStep = (typeof DOCUMENT_STEPS)[number];

/** What the worker needs to write a document: the material itself, read by the API side. */
export interface DocumentStepInput {
  kind: "document_generation";
  runId: string;
  step: DocumentStep;
  jobId: string;
  /** The storage folder, named so that a failure's message never shows it (worker/failure.ts). */
  storageDir: string;
  document: DocumentInput;
}

/** live_transcription has one step, run again while a recording goes on (meetings/live-transcript.ts). */
export const LIVE_STEPS = ["live"] as const;
export type LiveStep = (typeof LIVE_STEPS)[number];

/**
 * What the worker needs to transcribe the newest audio of a recording still being made: the
 * draft's parts received so far (0 to `parts - 1`, without a gap) in the storage folder. The
 * provisional text so far, and how far it reached, are in the draft's folder (storage/paths.ts's
 * LIVE_TRANSCRIPT), which the step reads and writes back.
 */
export interface LiveStepInput {
  kind: "live_transcription";
  runId: string;
  step: LiveStep;
  jobId: string;
  meetingId: string;
  storageDir: string;
  /**
   * Parts received so far, from 0 without a gap; the part still gathering, if sent, is
   * storage/paths.ts's liveTailName(parts). -1: nothing to hear (the draft was finished meanwhile).
   */
  parts: number;
  language: string | null;
  prompt: string | null;
}

/** One stretch of provisional text, times in seconds from the start of the recording. */
export interface LiveSegment {
  start: number;
  end: number;
  text: string;
}

/** The draft's provisional transcript file (storage/paths.ts's LIVE_TRANSCRIPT), as the live step writes it. */
export interface LiveTranscriptFile {
  /** Bytes of the joined parts (and part still gathering) heard so far: more arrived when the draft holds more. */
  heardBytes: number;
  /** The end of the audio transcribed so far. */
  heardUntil: number;
  /** The end of the last word kept: a later window keeps only words after it. */
  committedEnd: number;
  /** Seconds of audio never transcribed because the steps fell behind. */
  skippedSeconds: number;
  segments: LiveSegment[];
}

/** Every kind's step input; the worker pool needs only runId and step. */
export type StepInput = MeetingStepInput | DocumentStepInput | LiveStepInput;

export type StepResult =
  | { step: "download"; bytes: number }
  | { step: "decode"; durationSeconds: number }
  | { step: "transcribe"; language: string | null; model: string; segments: number }
  /** The transcript is the step's output file (storage/paths.ts's stepOutputName("transcript")). */
  | { step: "diarize"; speakers: number }
  /** The redacted transcript replaced the diarize step's output file; with audio, the recording was silenced. */
  | { step: "redact"; summary: RedactionSummary }
  | {
      step: "summarize";
      report: { title: string; markdown: string; structured: Record<string, unknown>; language: string | null; model: string; usage: TokenUsage };
    }
  | { step: "generate"; document: DocumentResult }
  /** The provisional text now covers `heardBytes` of the recording, `segments` in all. */
  | { step: "live"; heardBytes: number; segments: number; skippedSeconds: number };

export type ToWorker = { type: "run"; input: StepInput };

export type FromWorker =
  | { type: "ready" }
  | { type: "progress"; runId: string; fraction: number }
  | { type: "done"; runId: string; result: StepResult }
  // message: for the client (job.error.message); detail: raw text for the server log only.
  | { type: "failed"; runId: string; code: string; message: string; retryable: boolean; detail?: string };
