import { costOf } from "./meter-store.ts";
import type { Expected } from "./reservation-store.ts";
import type { BillingSettings } from "./settings.ts";

/**
 * Tokens of transcript per second of speech: about 150 to 180 words a minute at about 1.3 tokens
 * a word, rounded up, so an estimate errs on the side of holding a little too much.
 */
export const TOKENS_PER_AUDIO_SECOND = 4;
/** Characters of text per token, rounded down (the same side). */
export const CHARS_PER_TOKEN = 3;

/**
 * What an operation is expected to cost before it runs, to reserve at admission (usage/admission-store.ts):
 * audio by its duration at the transcription rate, and a language model's work by the transcript it
 * reads plus settings.estimates.reportTokens (its instructions and its answer). Never less than
 * the admission hold, so an operation whose size is not known yet (an audio_url before its
 * download) still holds something. The real cost is debited when each operation ends and the rest released.
 */
export function expectedProcessing(settings: BillingSettings, job: { audioSeconds: number | null; report: boolean }): Expected {
  const seconds = job.audioSeconds ?? 0;
  const transcription = costOf(settings, { operation: "transcription", audioSeconds: seconds }).cost;
  const report = job.report ? llmCost(settings, "report", seconds * TOKENS_PER_AUDIO_SECOND) : 0;
  return { cost: Math.max(settings.holdPerOperation, transcription + report), audioSeconds: seconds, documents: 0 };
}

/**
 * A report written from a stored transcript (written again, or from a pasted text): for the web
 * app it counts as one writing against its documents quota.
 */
export function expectedReport(settings: BillingSettings, transcriptChars: number): Expected {
  const cost = llmCost(settings, "report", Math.ceil(transcriptChars / CHARS_PER_TOKEN));
  return { cost: Math.max(settings.holdPerOperation, cost), audioSeconds: 0, documents: 1 };
}

/** A document written from a meeting whose transcript holds `transcriptChars` characters. */
export function expectedDocument(settings: BillingSettings, transcriptChars: number): Expected {
  const cost = llmCost(settings, "document", Math.ceil(transcriptChars / CHARS_PER_TOKEN));
  return { cost: Math.max(settings.holdPerOperation, cost), audioSeconds: 0, documents: 1 };
}

function llmCost(settings: BillingSettings, operation: "report" | "document", transcriptTokens: number): number {
  return costOf(settings, { operation, promptTokens: transcriptTokens + settings.estimates.reportTokens, completionTokens: 0 }).cost;
}
