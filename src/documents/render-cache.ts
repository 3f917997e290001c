import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase62 } from "../lib/ids.ts";
import { meetingDir } from "../storage/paths.ts";
import type { DocumentRow } from "./resource.ts";
import type { RenderInput } from "./render/types.ts";

export type RenderedFormat = "pdf" | "docx";

/** What a render shows besides the document: its title, the meeting's title, date and participants. */
export type RenderHeader = RenderInput["header"];

export type RenderDocument = (format: RenderedFormat, input: { markdown: string; header: RenderHeader }) => Promise<Uint8Array>;

/**
 * A document's PDF or DOCX, rendered on first request and then served from disk. Renders live in
 * the meeting's folder (documents/), so deleting the meeting deletes them; they are written
 * owner-only, to a temporary name then renamed, so a reader never sees half a file. The file name
 * carries a hash of what the render shows: a meeting retitled or given participants since gets a
 * fresh render, and the stale one is removed.
 */
export async function cachedRender(
  dataDir: string,
  document: DocumentRow,
  format: RenderedFormat,
  header: RenderHeader,
  render: RenderDocument,
): Promise<{ bytes: Uint8Array; cached: boolean }> {
  const dir = join(meetingDir(dataDir, document.meetingId), "documents");
  const key = createHash("sha256").update(JSON.stringify([document.markdown, header])).digest("hex").slice(0, 16);
  const path = join(dir, `${document.id}-${key}.${format}`);
  if (existsSync(path)) return { bytes: readFileSync(path), cached: true };

  const bytes = await render(format, { markdown: document.markdown, header });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stalePrefix = `${document.id}-`;
  for (const name of readdirSync(dir)) {
    if (name.startsWith(stalePrefix) && name.endsWith(`.${format}`)) rmSync(join(dir, name), { force: true });
  }
  const tmp = `${path}.${randomBase62(8)}.tmp`;
  writeFileSync(tmp, bytes, { mode: 0o600 });
  renameSync(tmp, path);
  return { bytes, cached: false };
}
