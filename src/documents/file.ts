import type { Db } from "../db/client.ts";
import { xmlSafeText } from "../lib/xml-text.ts";
import type { LoadMeetingMaterial } from "./material.ts";
import { getOwnedDocument } from "./query.ts";
import { cachedRender, type RenderDocument } from "./render-cache.ts";

export const DOCUMENT_FILE_TYPES = {
  md: "text/markdown; charset=utf-8",
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
} as const;
export type DocumentFileFormat = keyof typeof DOCUMENT_FILE_TYPES;

export interface DocumentFileDeps {
  db: Db;
  dataDir: string;
  loadMaterial: LoadMeetingMaterial;
  render: RenderDocument;
}

/**
 * One of the user's documents as a file (API and web app downloads): the Markdown as stored, or a
 * PDF or DOCX rendered on first request and then served from the meeting's render cache.
 * Another account's document is not_found.
 */
export async function documentFile(deps: DocumentFileDeps, userId: string, documentId: string, format: DocumentFileFormat) {
  const row = getOwnedDocument(deps.db, userId, documentId);
  const file = { fileName: `${row.id}.${format}`, contentType: DOCUMENT_FILE_TYPES[format] };
  if (format === "md") return { ...file, body: xmlSafeText(row.markdown) as string | Uint8Array, cached: null };
  const material = deps.loadMaterial(deps.db, row.meetingId, false);
  const header = {
    title: row.title,
    meetingTitle: material?.title ?? "",
    date: material?.date ?? new Date(row.createdAt).toISOString(),
    participants: material?.participants ?? [],
    language: row.language,
  };
  const { bytes, cached } = await cachedRender(deps.dataDir, row, format, header, deps.render);
  return { ...file, body: bytes as string | Uint8Array, cached: cached as boolean | null };
}
