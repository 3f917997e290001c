import { apiActor } from "../auth/actor.ts";
import { access, defineRoute, servedAs } from "../http/route.ts";
import type { ReportsApp } from "./app.ts";
import { renderReport } from "./render.ts";
import { reportParams, reportQuery, reportSchema } from "./schema.ts";

const REPORT_MARKDOWN_TYPE = "text/markdown; charset=utf-8";

export function reportRoutes(reports: ReportsApp) {
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
      handle: async ({ principal, params, query }) => {
        if (query.format === "md") {
          const file = await reports.markdownFile(apiActor(principal), params.meeting_id);
          return new Response(file.body, { headers: { "Content-Type": file.contentType } });
        }
        return { status: 200, body: renderReport(await reports.get(apiActor(principal), params.meeting_id)) };
      },
    }),
  ];
}
