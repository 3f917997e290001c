import { z } from "zod";
import { TRANSCRIPT_FORMATS } from "./types.ts";

export const transcriptParams = z.object({ meeting_id: z.uuid("A meeting id is a UUID.") });
export const transcriptQuery = z.object({ format: z.enum(TRANSCRIPT_FORMATS).default("json") });

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
  speaker_turns: z
    .array(z.object({ start: z.number(), end: z.number(), speaker: z.string() }))
    .meta({ description: "Extension: the diarization turns, who speaks when, whatever the segmentation." }),
});
