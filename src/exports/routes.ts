import { access, defineRoute, servedAs } from "../http/route.ts";
import { buildExportBundle, exportMarkdown, type ExportInput } from "./bundle.ts";
import { exportParams, exportQuery, exportSchema } from "./schema.ts";

const EXPORT_MARKDOWN_TYPE = "text/markdown; charset=utf-8";

export interface ExportRouteDeps {
  /** What one of the user's meetings exports; throws not_found or transcript_not_ready. */
  loadOwnedExportInput(userId: string, meetingId: string): ExportInput;
}

export function exportRoutes(deps: ExportRouteDeps) {
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
      handle: ({ principal, params, query }) => {
        const bundle = buildExportBundle(deps.loadOwnedExportInput(principal.user.id, params.meeting_id), {
          language: query.lang,
          maxTokens: query.max_tokens,
        });
        if (query.format === "md") {
          return new Response(exportMarkdown(bundle), {
            headers: {
              "Content-Type": EXPORT_MARKDOWN_TYPE,
              "Content-Disposition": `inline; filename="export-${bundle.meeting_id}.md"`,
            },
          });
        }
        return { status: 200, body: bundle };
      },
    }),
  ];
}
