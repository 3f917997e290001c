import { apiActor } from "../auth/actor.ts";
import { access, defineRoute, servedAs } from "../http/route.ts";
import type { TranscriptsApp } from "./app.ts";
import { TRANSCRIPT_MEDIA } from "./render.ts";
import { correctedSegmentSchema, correctionListSchema, correctSegmentBody, segmentParams, transcriptParams, transcriptQuery, transcriptSchema } from "./schema.ts";

export function transcriptRoutes(transcripts: TranscriptsApp) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings/:meeting_id/transcript",
      operationId: "getTranscript",
      summary: "The diarized, timestamped transcript as json, md, txt, srt or vtt",
      tag: "Transcripts",
      access: access.allOf("read:transcripts"),
      params: transcriptParams,
      query: transcriptQuery,
      responses: {
        200: {
          description: "The transcript (json); md, txt, srt and vtt are text in their own media types",
          schema: transcriptSchema,
          alsoServedAs: servedAs("text", ...Object.values(TRANSCRIPT_MEDIA).map((media) => media.contentType).filter((type) => type !== "application/json")),
        },
      },
      errors: ["transcript_not_ready"],
      handle: async ({ principal, params, query }) => {
        const file = await transcripts.file(apiActor(principal), params.meeting_id, query.format);
        return new Response(file.body, { headers: { "Content-Type": file.contentType, "Content-Disposition": `inline; filename="${file.fileName}"` } });
      },
    }),
    defineRoute({
      method: "PATCH",
      path: "/api/v1/meetings/:meeting_id/transcript/segments/:segment_index",
      operationId: "correctTranscriptSegment",
      summary: "Extension: correct the words of one segment; exports, documents, search and a regenerated report use them, and every version is kept",
      tag: "Transcripts",
      access: access.allOf("write:meetings"),
      params: segmentParams,
      body: correctSegmentBody,
      responses: { 200: { description: "The segment with its new words and version", schema: correctedSegmentSchema } },
      errors: ["transcript_not_ready", "malformed_body", "unsupported_media_type"],
      handle: async ({ principal, params, body }) => {
        const { version, segment } = await transcripts.correctSegment(apiActor(principal), params.meeting_id, params.segment_index, body.text);
        return { status: 200, body: { object: "transcript_segment", index: params.segment_index, ...segment, version } };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings/:meeting_id/transcript/corrections",
      operationId: "listTranscriptCorrections",
      summary: "Extension: every correction of the transcript's words, oldest first, with its version and author",
      tag: "Transcripts",
      access: access.allOf("read:transcripts"),
      params: transcriptParams,
      responses: { 200: { description: "The corrections", schema: correctionListSchema } },
      handle: async ({ principal, params }) => ({ status: 200, body: { object: "list", data: await transcripts.corrections(apiActor(principal), params.meeting_id) } }),
    }),
  ];
}
