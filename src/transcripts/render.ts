/**
 * Renders a meeting's Transcript object in the formats of GET /v1/meetings/{id}/transcript.
 * Every format starts from the same clean-up (normalize.ts: time order, times rounded to the
 * millisecond and never negative or NaN, one-line text, speaker_name else label); each renderer's
 * own choices are described atop its file in formats/.
 */
import { renderJson } from "./formats/json.ts";
import { renderMarkdown } from "./formats/md.ts";
import { renderSrt } from "./formats/srt.ts";
import { renderTxt } from "./formats/txt.ts";
import { renderVtt } from "./formats/vtt.ts";
import { TRANSCRIPT_FORMATS, type RenderedTranscript, type TranscriptDocument, type TranscriptFormat, type TranscriptMeta } from "./types.ts";

export { TRANSCRIPT_FORMATS };
export type { RenderedTranscript, TranscriptDocument, TranscriptFormat, TranscriptMeta, TranscriptSegment } from "./types.ts";

/** Media type and file extension of each format. */
export const TRANSCRIPT_MEDIA: Readonly<Record<TranscriptFormat, { contentType: string; fileExtension: string }>> = {
  json: { contentType: "application/json", fileExtension: "json" },
  md: { contentType: "text/markdown; charset=utf-8", fileExtension: "md" },
  txt: { contentType: "text/plain; charset=utf-8", fileExtension: "txt" },
  srt: { contentType: "application/x-subrip; charset=utf-8", fileExtension: "srt" },
  vtt: { contentType: "text/vtt; charset=utf-8", fileExtension: "vtt" },
};

export function isTranscriptFormat(value: unknown): value is TranscriptFormat {
  return typeof value === "string" && (TRANSCRIPT_FORMATS as readonly string[]).includes(value);
}

export function renderTranscript(doc: TranscriptDocument, format: TranscriptFormat, meta: TranscriptMeta): RenderedTranscript {
  const body = renderBody(doc, format, meta);
  return { body, ...TRANSCRIPT_MEDIA[format] };
}

function renderBody(doc: TranscriptDocument, format: TranscriptFormat, meta: TranscriptMeta): string {
  switch (format) {
    case "json":
      return renderJson(doc);
    case "md":
      return renderMarkdown(doc, meta);
    case "txt":
      return renderTxt(doc);
    case "srt":
      return renderSrt(doc);
    case "vtt":
      return renderVtt(doc);
    default:
      throw new RangeError(`Unknown transcript format: ${String(format satisfies never)}`);
  }
}
