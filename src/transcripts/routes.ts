import { access, defineRoute, servedAs } from "../http/route.ts";
import { renderTranscript, TRANSCRIPT_MEDIA } from "./render.ts";
import { correctedSegmentSchema, correctionListSchema, correctSegmentBody, segmentParams, transcriptParams, transcriptQuery, transcriptSchema } from "./schema.ts";
import type { TranscriptDocument, TranscriptMeta } from "./types.ts";

export interface TranscriptRouteDeps {
  /**
   * The transcript of a meeting of this user with what the text formats show beside it;
   * throws not_found (not this user's meeting) or transcript_not_ready.
   */
  loadOwnedTranscript(userId: string, meetingId: string): { transcript: TranscriptDocument; meta: TranscriptMeta };
  /** Replaces one segment's words, keeping the version and its author; answers the segment's version. */
  correctSegment(userId: string, meetingId: string, segmentIndex: number, text: string): { version: number };
  /** Every correction of one of the user's meetings, oldest first. */
  listCorrections(userId: string, meetingId: string): unknown[];
}

export function transcriptRoutes(deps: TranscriptRouteDeps) {
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
      handle: ({ principal, params, query }) => {
        const { transcript, meta } = deps.loadOwnedTranscript(principal.user.id, params.meeting_id);
        const rendered = renderTranscript(transcript, query.format, meta);
        return new Response(rendered.body, {
          headers: {
            "Content-Type": rendered.contentType,
            "Content-Disposition": `inline; filename="transcript-${transcript.meeting_id}.${rendered.fileExtension}"`,
          },
        });
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
      handle: ({ principal, params, body }) => {
        const { version } = deps.correctSegment(principal.user.id, params.meeting_id, params.segment_index, body.text);
        const segment = deps.loadOwnedTranscript(principal.user.id, params.meeting_id).transcript.segments[params.segment_index]!;
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
      handle: ({ principal, params }) => ({ status: 200, body: { object: "list", data: deps.listCorrections(principal.user.id, params.meeting_id) } }),
    }),
  ];
}
