import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_AUDIT_TRAIL, type AuditTrail } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import { reportMarkdownFile } from "./render.ts";
import type { StoredReport } from "./types.ts";

/** The report's Markdown as a file: XML-safe text (lib/xml-text.ts) and our own file name. */
export interface ReportFile {
  body: string;
  contentType: string;
  fileName: string;
}

/** The report rows are the meeting's (reports/ never imports meetings/): service.ts hands the loader in. */
export interface ReportsDeps {
  /** The report of one of the actor's meetings; throws not_found (not the actor's) or summary_not_ready. */
  loadOwnedReport(actor: Actor, meetingId: string): Promise<StoredReport>;
  /** Where each read of a report is recorded (audit/trail.ts). */
  audit?: AuditTrail;
}

/** The reports' use cases: the report of one of the actor's meetings, as stored or as a Markdown file. */
export function reportsApp(deps: ReportsDeps) {
  const audit = deps.audit ?? NO_AUDIT_TRAIL;
  /** The report, its read recorded (who read which meeting's report, as JSON or Markdown). */
  const read = async (actor: Actor, meetingId: string, format: "json" | "md"): Promise<StoredReport> => {
    const report = await deps.loadOwnedReport(actor, meetingId);
    await audit.record(actorEntry(actor, AUDIT_ACTIONS.reportRead, { type: "meeting", id: report.meetingId }, { format }));
    return report;
  };
  return {
    get: (actor: Actor, meetingId: string): Promise<StoredReport> => read(actor, meetingId, "json"),
    async markdownFile(actor: Actor, meetingId: string): Promise<ReportFile> {
      const report = await read(actor, meetingId, "md");
      return { body: reportMarkdownFile(report), contentType: "text/markdown; charset=utf-8", fileName: `report-${report.meetingId}.md` };
    },
  };
}

export type ReportsApp = ReturnType<typeof reportsApp>;
