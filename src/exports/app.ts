import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_AUDIT_TRAIL, type AuditTrail } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import { buildExportBundle, exportMarkdown, type ExportBundle, type ExportInput, type ExportOptions } from "./bundle.ts";

/** What one of the user's meetings exports, gathered by the meeting side (service.ts hands it in). */
export interface ExportsDeps {
  /** Throws not_found or transcript_not_ready. */
  loadOwnedExportInput(actor: Actor, meetingId: string): Promise<ExportInput>;
  /** Where each export is recorded (audit/trail.ts). */
  audit?: AuditTrail;
}

/** The export bundle of one of the actor's meetings, as the API's JSON or one Markdown text. */
export function exportsApp(deps: ExportsDeps) {
  const audit = deps.audit ?? NO_AUDIT_TRAIL;
  /** The bundle, its read recorded (who exported which meeting, as JSON or Markdown). */
  const read = async (actor: Actor, meetingId: string, options: ExportOptions, format: "json" | "md"): Promise<ExportBundle> => {
    const built = buildExportBundle(await deps.loadOwnedExportInput(actor, meetingId), options);
    await audit.record(actorEntry(actor, AUDIT_ACTIONS.exportRead, { type: "meeting", id: built.meeting_id }, { format }));
    return built;
  };
  return {
    bundle: (actor: Actor, meetingId: string, options: ExportOptions): Promise<ExportBundle> => read(actor, meetingId, options, "json"),
    /** The parts joined as Markdown, named `export-<meeting id>.md`. */
    async markdownFile(actor: Actor, meetingId: string, options: ExportOptions) {
      const built = await read(actor, meetingId, options, "md");
      return { body: exportMarkdown(built), contentType: "text/markdown; charset=utf-8", fileName: `export-${built.meeting_id}.md` };
    },
  };
}

export type ExportsApp = ReturnType<typeof exportsApp>;
