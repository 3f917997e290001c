import { toRfc3339 } from "../lib/time.ts";
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
