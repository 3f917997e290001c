import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { access, defineRoute } from "../http/route.ts";
import { getOwnedMeetingRow, renderSummary } from "../meetings/render.ts";
import { meetingParams, summaryQuery } from "../meetings/schema.ts";
import { summaries } from "../meetings/table.ts";

export const summarySchema = z.object({
  object: z.literal("summary"),
  meeting_id: z.string(),
  title: z.string(),
  language: z.string().nullable(),
  markdown: z.string(),
  structured: z.record(z.string(), z.unknown()).nullable(),
  model: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export function reportRoutes(deps: { db: Db }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings/:meeting_id/summary",
      operationId: "getSummary",
      summary: "The AI meeting report, as json or md",
      tag: "Reports",
      access: access.allOf("read:meetings"),
      params: meetingParams,
      query: summaryQuery,
      responses: { 200: { description: "The report", schema: summarySchema } },
      errors: ["summary_not_ready"],
      handle: ({ principal, params, query }) => {
        const meeting = getOwnedMeetingRow(deps.db, principal.user.id, params.meeting_id);
        if (!meeting) throw ApiError.notFound(`Meeting ${params.meeting_id}`);
        if (meeting.transcribeOnly) {
          throw new ApiError("summary_not_ready", "This meeting was created with transcribe_only: it has no AI report.");
        }
        const row = deps.db.select().from(summaries).where(eq(summaries.meetingId, meeting.id)).get();
        if (!row) throw new ApiError("summary_not_ready", "The AI report is not ready yet. Wait for processing.completed or poll the job.");
        if (query.format === "md") return new Response(row.markdown, { headers: { "Content-Type": "text/markdown; charset=utf-8" } });
        return { status: 200, body: renderSummary(row) };
      },
    }),
  ];
}
