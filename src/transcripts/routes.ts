import { access, defineRoute } from "../http/route.ts";
import { renderTranscript } from "./render.ts";
import { transcriptParams, transcriptQuery, transcriptSchema } from "./schema.ts";
import type { TranscriptDocument, TranscriptMeta } from "./types.ts";

export interface TranscriptRouteDeps {
  /**
   * The transcript of a meeting of this user with what the text formats show beside it;
   * throws not_found (not this user's meeting) or transcript_not_ready.
   */
  loadOwnedTranscript(userId: string, meetingId: string): { transcript: TranscriptDocument; meta: TranscriptMeta };
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
        200: { description: "The transcript (json); md, txt, srt and vtt are text in their own media types", schema: transcriptSchema },
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
  ];
}
