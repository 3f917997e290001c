import { apiActor } from "../auth/actor.ts";
import { access, defineRoute, servedAs } from "../http/route.ts";
import type { ExportsApp } from "./app.ts";
import { exportParams, exportQuery, exportSchema } from "./schema.ts";

const EXPORT_MARKDOWN_TYPE = "text/markdown; charset=utf-8";

export function exportRoutes(exports: ExportsApp) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings/:meeting_id/export",
      operationId: "exportMeeting",
      summary: "The meeting for a language model: priming prompt, details, participants, AI report and transcript, in parts of at most max_tokens tokens",
      tag: "Meetings",
      access: access.allOf("read:meetings", "read:transcripts"),
      params: exportParams,
      query: exportQuery,
      responses: {
        200: {
          description: "The export bundle (json); with format md, the parts joined as text/markdown",
          schema: exportSchema,
          alsoServedAs: servedAs("text", EXPORT_MARKDOWN_TYPE),
        },
      },
      errors: ["transcript_not_ready"],
      handle: async ({ principal, params, query }) => {
        const options = { language: query.lang, maxTokens: query.max_tokens };
        if (query.format === "md") {
          const file = await exports.markdownFile(apiActor(principal), params.meeting_id, options);
          return new Response(file.body, { headers: { "Content-Type": file.contentType, "Content-Disposition": `inline; filename="${file.fileName}"` } });
        }
        return { status: 200, body: await exports.bundle(apiActor(principal), params.meeting_id, options) };
      },
    }),
  ];
}
