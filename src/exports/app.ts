import type { Actor } from "../auth/actor.ts";
import { buildExportBundle, exportMarkdown, type ExportBundle, type ExportInput, type ExportOptions } from "./bundle.ts";

/** What one of the user's meetings exports, gathered by the meeting side (service.ts hands it in). */
export interface ExportsDeps {
  /** Throws not_found or transcript_not_ready. */
  loadOwnedExportInput(actor: Actor, meetingId: string): Promise<ExportInput>;
}

/** The export bundle of one of the actor's meetings, as the API's JSON or one Markdown text. */
export function exportsApp(deps: ExportsDeps) {
  const bundle = async (actor: Actor, meetingId: string, options: ExportOptions): Promise<ExportBundle> =>
    buildExportBundle(await deps.loadOwnedExportInput(actor, meetingId), options);
  return {
    bundle,
    /** The parts joined as Markdown, named `export-<meeting id>.md`. */
    async markdownFile(actor: Actor, meetingId: string, options: ExportOptions) {
      const built = await bundle(actor, meetingId, options);
      return { body: exportMarkdown(built), contentType: "text/markdown; charset=utf-8", fileName: `export-${built.meeting_id}.md` };
    },
  };
}

export type ExportsApp = ReturnType<typeof exportsApp>;
