import type { EntityFinder } from "../redaction/types.ts";
import type { SpeechSegment } from "../transcripts/types.ts";

export type { SpeechSegment } from "../transcripts/types.ts";

/**
 * The engines behind the job stages, each a narrow interface. They run inside the worker process,
 * never in the API process: a native engine can abort or hang its whole process.
 */

export interface StepContext {
  /** Reports progress of the current step, 0 to 1. */
  progress(fraction: number): void;
  signal: AbortSignal;
}

export interface DecodedAudio {
  /** 16 kHz mono 16-bit PCM WAV. */
  wavPath: string;
  durationSeconds: number;
}

export interface TranscriptionResult {
  language: string | null;
  model: string;
  segments: SpeechSegment[];
}

export interface SpeakerTurn {
  start: number;
  end: number;
  speaker: number; // cluster index; labelled SPEAKER_NN in order of first appearance
}

export interface ReportInput {
  title: string | null;
  language: string | null;
  transcript: { start: number; end: number; speaker: string; text: string }[];
}

export interface StructuredReport {
  title: string;
  summary: string;
  key_takeaways: string[];
  action_items: { text: string; owner: string | null; due: string | null }[];
  decisions: string[];
  minutes: string[];
}

/** What a language-model operation consumed, for metering: every call's prompt and generated tokens. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ReportResult {
  title: string;
  markdown: string;
  structured: StructuredReport;
  language: string | null;
  model: string;
  usage: TokenUsage;
}

/** What a document is written from (issue 10): the task, the meeting's report and, when asked, its transcript. */
export interface DocumentInput {
  /** The template's prompt or the client's own. */
  task: string;
  /** The client's extra guidance, appended to the task. */
  instructions: string | null;
  /** The document's title when the client or the template gives one; else the model's first heading, else the meeting's title. */
  title: string | null;
  /** The meeting's language: the document is written in it. */
  language: string | null;
  meeting: { title: string; date: string; participants: string[] };
  /** The AI report's Markdown. */
  report: string;
  /** The transcript, when the client asked for it (include_transcript). */
  transcript: ReportInput["transcript"] | null;
}

export interface DocumentResult {
  title: string;
  markdown: string;
  language: string | null;
  model: string;
  usage: TokenUsage;
}

export interface Transcriber {
  /** `prompt`: whisper's initial prompt for this recording (the meeting's vocabulary), in place of the configured one. */
  transcribe(input: { wavPath: string; language: string | null; prompt?: string | null }, context: StepContext): Promise<TranscriptionResult>;
}

export interface Diarizer {
  diarize(
    input: { wavPath: string; durationSeconds: number; minSpeakers: number | null; maxSpeakers: number | null; solo: boolean },
    context: StepContext,
  ): Promise<SpeakerTurn[]>;
}

export interface Reporter {
  report(input: ReportInput, context: StepContext): Promise<ReportResult>;
}

export interface DocumentWriter {
  write(input: DocumentInput, context: StepContext): Promise<DocumentResult>;
}

export interface Engines {
  transcriber: Transcriber;
  diarizer: Diarizer;
  reporter: Reporter;
  /** The same local LLM as the report's, writing documents. */
  writer: DocumentWriter;
  /** The same local LLM again, naming the persons and postal addresses of a transcript to redact (issue 23). */
  entityFinder: EntityFinder;
  /**
   * Loads every model now; the worker calls it once at start, before it says it is ready, so that
   * no step pays for a load. Resolves with the loads that failed (for the operator's log): those
   * engines try again on their next use and fail that step with their error. Optional: an engines
   * module whose createEngines loads everything needs none.
   */
  preload?(): Promise<Error[]>;
}

/**
 * A failure an engine reports on purpose: a stable code for the job's error, and whether a retry
 * may help. The message is shown to the client (job.error.message), so it speaks of the recording
 * and of model names, never of server paths or raw tool output: those go in `detail`, which only
 * the server log receives.
 */
export class EngineError extends Error {
  /** Raw text for the operator (paths, tool output); never sent to a client. */
  readonly detail?: string;

  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    options: { detail?: string } = {},
  ) {
    super(message);
    this.name = "EngineError";
    if (options.detail !== undefined) this.detail = options.detail;
  }
}
