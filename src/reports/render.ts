import { toRfc3339 } from "../lib/time.ts";
import { xmlSafeText } from "../lib/xml-text.ts";
import type { StoredReport } from "./types.ts";

/** The API's Summary object (SPEC 2): the API calls the AI report the meeting's summary. */
export function renderReport(report: StoredReport) {
  return {
    object: "summary" as const,
    meeting_id: report.meetingId,
    title: report.title,
    language: report.language,
    markdown: report.markdown,
    structured: report.structured,
    model: report.model,
    created_at: toRfc3339(report.createdAt),
    updated_at: toRfc3339(report.updatedAt),
  };
}

/** The report as a Markdown file (format=md): its text XML-safe (lib/xml-text.ts). */
export function reportMarkdownFile(report: StoredReport): string {
  return xmlSafeText(report.markdown);
}
