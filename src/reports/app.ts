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
}

/** The reports' use cases: the report of one of the actor's meetings, as stored or as a Markdown file. */
export function reportsApp(deps: ReportsDeps) {
  const get = async (actor: Actor, meetingId: string): Promise<StoredReport> => deps.loadOwnedReport(actor, meetingId);
  return {
    get,
    async markdownFile(actor: Actor, meetingId: string): Promise<ReportFile> {
      const report = await get(actor, meetingId);
      return { body: reportMarkdownFile(report), contentType: "text/markdown; charset=utf-8", fileName: `report-${report.meetingId}.md` };
    },
  };
}

export type ReportsApp = ReturnType<typeof reportsApp>;
