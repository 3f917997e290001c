import type { MeetingStep } from "../jobs/steps.ts";

/** What a step needs, all of it plain data: the worker process has no database. */
export interface StepInput {
  runId: string;
  step: MeetingStep;
  jobId: string;
  meetingId: string;
  dataDir: string;
  /** The recording as stored (upload) or where the download step puts it. */
  recordingPath: string;
  audioUrl: string | null;
  language: string | null; // null = detect
  transcribeOnly: boolean;
  solo: boolean;
  minSpeakers: number | null;
  maxSpeakers: number | null;
  title: string | null;
  participantCount: number;
}

export type StepResult =
  | { step: "download"; bytes: number }
  | { step: "decode"; durationSeconds: number }
  | { step: "transcribe"; language: string | null; model: string; segments: number }
  | { step: "diarize"; speakers: number; transcriptPath: string }
  | {
      step: "summarize";
      report: { title: string; markdown: string; structured: Record<string, unknown>; language: string | null; model: string };
    };

export type ToWorker = { type: "run"; input: StepInput };

export type FromWorker =
  | { type: "ready" }
  | { type: "progress"; runId: string; fraction: number }
  | { type: "done"; runId: string; result: StepResult }
  // message: for the client (job.error.message); detail: raw text for the server log only.
  | { type: "failed"; runId: string; code: string; message: string; retryable: boolean; detail?: string };
