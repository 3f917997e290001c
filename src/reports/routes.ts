import { access, defineRoute, servedAs } from "../http/route.ts";
import { renderReport, reportMarkdownFile } from "./render.ts";
import { reportParams, reportQuery, reportSchema } from "./schema.ts";
import type { StoredReport } from "./types.ts";

const REPORT_MARKDOWN_TYPE = "text/markdown; charset=utf-8";

export interface ReportRouteDeps {
  /** The report of a meeting of this user; throws not_found (not this user's) or summary_not_ready. */
  loadOwnedReport(userId: string, meetingId: string): StoredReport;
}

export function reportRoutes(deps: ReportRouteDeps) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings/:meeting_id/summary",
      operationId: "getSummary",
      summary: "The AI meeting report, as json or md",
      tag: "Reports",
      access: access.allOf("read:meetings"),
      params: reportParams,
      query: reportQuery,
      responses: { 200: { description: "The report (json); with format md, its Markdown", schema: reportSchema, alsoServedAs: servedAs("text", REPORT_MARKDOWN_TYPE) } },
      errors: ["summary_not_ready"],
      handle: ({ principal, params, query }) => {
        const report = deps.loadOwnedReport(principal.user.id, params.meeting_id);
        if (query.format === "md") return new Response(reportMarkdownFile(report), { headers: { "Content-Type": REPORT_MARKDOWN_TYPE } });
        return { status: 200, body: renderReport(report) };
      },
    }),
  ];
}
