import type { RedactableTranscript, RedactionRequest } from "../redaction/types.ts";
import { redactText, redactTranscript } from "../redaction/redact.ts";
import type { StoredTranscript } from "../transcripts/types.ts";

/*
 * The redact step's helpers (issue 23): the stored transcript without its words, and the report's
 * second pass. (src/redaction/'s withWords puts the transcription's words back on the segments.)
 */

/** The transcript as stored: no word timings (they may still spell a value the text no longer has). */
export function withoutWords(transcript: RedactableTranscript): StoredTranscript {
  return { ...transcript, segments: transcript.segments.map(({ words: _words, ...segment }) => segment) };
}

interface WrittenReport {
  title: string;
  markdown: string;
  structured: Record<string, unknown>;
}

/**
 * The report with the structured kinds (and the participants' names) redacted once more: it is
 * written from the redacted transcript, so this only catches a value the model brought back from
 * its title or its own invention. The transcript's placeholders are not known here (their map
 * lived in the redact step's memory): a value found now gets a placeholder of its own.
 */
export async function redactReport<R extends WrittenReport>(report: R, transcript: StoredTranscript, request: RedactionRequest, participantNames: string[], signal: AbortSignal): Promise<R> {
  // The participants' names as persons, from the library itself: an empty transcript gives the map.
  const { placeholders } = await redactTranscript({ ...transcript, segments: [] }, request, { participantNames, finder: null, signal });
  const redact = (text: string) => redactText(text, request, placeholders).text;
  return { ...report, title: redact(report.title), markdown: redact(report.markdown), structured: redactValues(report.structured, redact) as Record<string, unknown> };
}

/** Every string of a JSON value passed through `redact`. */
function redactValues(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValues(item, redact));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValues(item, redact)]));
  return value;
}
