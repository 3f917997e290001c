/** The steps of meeting processing, in order: the worker runs them, the meeting kind sequences them. */
export const MEETING_STEPS = ["download", "decode", "transcribe", "diarize", "summarize"] as const;
export type MeetingStep = (typeof MEETING_STEPS)[number];

/** What a meeting step needs, all of it plain data: the worker process has no database. */
export interface MeetingStepInput {
  kind: "meeting_processing";
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

/** Every kind's step input; the worker pool needs only runId and step. */
export type StepInput = MeetingStepInput;

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
