import { toRfc3339 } from "../lib/time.ts";
import type { documents } from "./table.ts";

export type DocumentRow = typeof documents.$inferSelect;

/** Every document can be read in these formats (GET /v1/documents/{id}?format=). */
export const DOCUMENT_FORMATS = ["json", "md", "pdf", "docx"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** The document resource (SPEC 2); markdown only where asked (GET /v1/documents/{id}). */
export function renderDocument(row: DocumentRow, withMarkdown = false) {
  return {
    id: row.id,
    object: "document" as const,
    meeting_id: row.meetingId,
    title: row.title,
    template_id: row.templateId,
    language: row.language,
    model: row.model,
    formats: [...DOCUMENT_FORMATS],
    ...(withMarkdown ? { markdown: row.markdown } : {}),
    created_at: toRfc3339(row.createdAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}

/** A document as the API and the web app show it (without its Markdown). */
export type DocumentResource = ReturnType<typeof renderDocument>;

/** The media type of each file format a document is served in (API and web app downloads). */
export const DOCUMENT_FILE_TYPES = {
  md: "text/markdown; charset=utf-8",
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
} as const;
export type DocumentFileFormat = keyof typeof DOCUMENT_FILE_TYPES;
