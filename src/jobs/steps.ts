import type { JOB_STAGES } from "./table.ts";

/** The internal steps of meeting processing, in order. A job records the next one to run. */
export const MEETING_STEPS = ["download", "decode", "transcribe", "diarize", "summarize"] as const;
export type MeetingStep = (typeof MEETING_STEPS)[number];

export function isMeetingStep(value: string | null): value is MeetingStep {
  return value !== null && (MEETING_STEPS as readonly string[]).includes(value);
}

export function firstStep(source: "upload" | "url"): MeetingStep {
  return source === "url" ? "download" : "decode";
}

/** The public stage (SPEC 3) a step belongs to: decoding and diarization are part of transcribing. */
export function stageOf(step: MeetingStep): (typeof JOB_STAGES)[number] {
  if (step === "download") return "downloading";
  if (step === "summarize") return "summarizing";
  return "transcribing";
}

export function stepAfter(step: MeetingStep, transcribeOnly: boolean): MeetingStep | null {
  if (step === "diarize" && transcribeOnly) return null;
  const next = MEETING_STEPS[MEETING_STEPS.indexOf(step) + 1];
  return next ?? null;
}

// Share of the whole job each step stands for, so progress moves steadily from 0 to 1.
const WEIGHTS: Record<MeetingStep, number> = { download: 0.1, decode: 0.05, transcribe: 0.55, diarize: 0.1, summarize: 0.2 };

/** Overall progress when `step` is `fraction` done, over the steps this job runs. */
export function overallProgress(step: MeetingStep, fraction: number, job: { hasDownload: boolean; transcribeOnly: boolean }): number {
  const steps = MEETING_STEPS.filter((s) => (s !== "download" || job.hasDownload) && (s !== "summarize" || !job.transcribeOnly));
  const total = steps.reduce((sum, s) => sum + WEIGHTS[s], 0);
  let done = 0;
  for (const s of steps) {
    if (s === step) break;
    done += WEIGHTS[s];
  }
  const value = (done + WEIGHTS[step] * Math.min(1, Math.max(0, fraction))) / total;
  return Math.round(value * 1000) / 1000;
}
