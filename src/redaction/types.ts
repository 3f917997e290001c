/**
 * The redaction library's public contract (issue 23, item 1). The worker's redact step (and the
 * API side, for reports and documents) call redactTranscript/redactText; this folder imports only
 * lib/ and the shared transcript types, so the worker process may load it.
 */
import type { LabelledSegment, StoredTranscript, TimedWord } from "../transcripts/types.ts";

export const ENTITY_KINDS = ["person", "email", "phone", "payment_card", "iban", "national_id", "date_of_birth", "address", "case_number"] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

/** The kinds found by validated recognisers (no model involved): the ones the corpus must get right. */
export const STRUCTURED_KINDS = ["email", "phone", "payment_card", "iban", "national_id", "date_of_birth", "case_number"] as const satisfies readonly EntityKind[];

/** What a meeting asked for (redact_pii), normalized: `true` means every kind, audio false. */
export interface RedactionRequest {
  entities: EntityKind[];
  audio: boolean;
  /** the account's case/file number pattern (a RegExp source), or null */
  caseNumberPattern: string | null;
}

/** What was applied: counts of distinct entities per kind (kinds with 0 left out) and whether the audio was silenced. */
export interface RedactionSummary {
  entities: Partial<Record<EntityKind, number>>;
  audio: boolean;
}

/** A time span (seconds, from word timings) whose audio must be silenced. */
export interface SilenceSpan {
  start: number;
  end: number;
}

/** Finds names and postal addresses with the local LLM under a JSON grammar (an engine; a test double in unit tests). */
export interface EntityFinder {
  find(text: string, kinds: ("person" | "address")[], signal?: AbortSignal): Promise<{ kind: "person" | "address"; text: string }[]>;
}

/**
 * A segment as redactTranscript accepts it: the stored one, optionally with the word timings the
 * transcription produced (the stored transcript drops them; the worker still holds them). With
 * words, a redacted word's time span is exact; without, it is estimated from the characters' place
 * in the segment.
 */
export type RedactableSegment = LabelledSegment & { words?: TimedWord[] };

/** A StoredTranscript whose segments may carry their words. A plain StoredTranscript is one. */
export type RedactableTranscript = Omit<StoredTranscript, "segments"> & { segments: RedactableSegment[] };

/**
 * The meeting's placeholders: an entity's key (its kind and normalized value) → its placeholder,
 * in order of first appearance. Plain JSON, but it holds the raw values: keep it in memory only,
 * never in the database or the data dir.
 */
export interface PlaceholderMap {
  /** The meeting's language (ISO 639-1) or null: it picks the phone numbers' default regions. */
  language: string | null;
  /** `${kind}:${normalized value}` → "[PERSON_1]". */
  placeholders: Record<string, string>;
  /** How many placeholders each kind has handed out: the next one is count + 1. */
  counts: Partial<Record<EntityKind, number>>;
  /** Persons and addresses as they were written, so redactText finds them again in other text. */
  literals: { kind: "person" | "address"; text: string; key?: string; capitalOnly?: boolean }[];
}
