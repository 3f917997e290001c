import { createHash } from "node:crypto";
import { randomBase62 } from "../lib/ids.ts";
import { DOCUMENT_RENDERS } from "../storage/paths.ts";
import type { Storage } from "../storage/storage.ts";
import type { DocumentRow } from "./resource.ts";
import type { RenderInput } from "./render/types.ts";

export type RenderedFormat = "pdf" | "docx";

/** What a render shows besides the document: its title, the meeting's title, date and participants. */
export type RenderHeader = RenderInput["header"];

export type RenderDocument = (format: RenderedFormat, input: { markdown: string; header: RenderHeader }) => Promise<Uint8Array>;

/**
 * A document's PDF or DOCX, rendered on first request and then served from the storage. Renders
 * live with the meeting's files (documents/), so deleting the meeting deletes them; they are
 * written atomically (storage/storage.ts), so a reader on any node never sees half a file, and
 * two nodes rendering the same document at once each commit a whole, identical file. The file
 * name carries a hash of what the render shows: a meeting retitled or given participants since
 * gets a fresh render, and the stale one is removed.
 */
export async function cachedRender(
  storage: Storage,
  document: DocumentRow,
  format: RenderedFormat,
  header: RenderHeader,
  render: RenderDocument,
): Promise<{ bytes: Uint8Array; cached: boolean }> {
  const key = createHash("sha256").update(JSON.stringify([document.markdown, header])).digest("hex").slice(0, 16);
  const name = `${DOCUMENT_RENDERS}/${document.id}-${key}.${format}`;
  const stored = await storage.get(document.meetingId, name);
  if (stored) return { bytes: stored, cached: true };

  const bytes = await render(format, { markdown: document.markdown, header });
  const stalePrefix = `${DOCUMENT_RENDERS}/${document.id}-`;
  for (const other of await storage.list(document.meetingId, DOCUMENT_RENDERS)) {
    if (other !== name && other.startsWith(stalePrefix) && other.endsWith(`.${format}`)) await storage.delete(document.meetingId, other);
  }
  await storage.put(document.meetingId, name, bytes, randomBase62(8));
  return { bytes, cached: false };
}
