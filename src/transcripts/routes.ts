import { z } from "zod";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors/api-error.ts";
import { access, defineRoute } from "../http/route.ts";
import { toRfc3339 } from "../lib/time.ts";
import { getOwnedMeetingRow } from "../meetings/render.ts";
import { meetingParams, transcriptQuery } from "../meetings/schema.ts";
import { renderTranscript } from "./render.ts";
import { loadTranscript } from "./service.ts";

const segmentSchema = z.object({
  start: z.number(),
  end: z.number(),
  speaker: z.string(),
  speaker_name: z.string().nullable(),
  text: z.string(),
});

export const transcriptSchema = z.object({
  object: z.literal("transcript"),
  meeting_id: z.string(),
  language: z.string().nullable(),
  duration_seconds: z.number().int().nullable(),
  model: z.string().nullable(),
  speakers: z.array(z.string()),
  segments: z.array(segmentSchema),
});

export function transcriptRoutes(deps: { db: Db }) {
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/meetings/:meeting_id/transcript",
      operationId: "getTranscript",
      summary: "The diarized, timestamped transcript as json, md, txt, srt or vtt",
      tag: "Transcripts",
      access: access.allOf("read:transcripts"),
      params: meetingParams,
      query: transcriptQuery,
      responses: {
        200: { description: "The transcript (json); md, txt, srt and vtt are text in their own media types", schema: transcriptSchema },
      },
      errors: ["transcript_not_ready"],
      handle: ({ principal, params, query }) => {
        const meeting = getOwnedMeetingRow(deps.db, principal.user.id, params.meeting_id);
        if (!meeting) throw ApiError.notFound(`Meeting ${params.meeting_id}`);
        const rendered = renderTranscript(loadTranscript(deps.db, meeting.id), query.format, {
          title: meeting.title,
          recordedAt: toRfc3339(meeting.recordedAt),
        });
        return new Response(rendered.body, {
          headers: {
            "Content-Type": rendered.contentType,
            "Content-Disposition": `inline; filename="transcript-${meeting.id}.${rendered.fileExtension}"`,
          },
        });
      },
    }),
  ];
}
