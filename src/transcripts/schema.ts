import { z } from "zod";
import { TRANSCRIPT_FORMATS } from "./types.ts";

/** The meeting object's and the transcript's (extension, issue 23) `redaction` field. */
export const redactionSchema = z
  .object({
    applied: z.boolean().meta({ description: "False while the meeting is processed; true once the transcript holds only placeholders" }),
    requested: z.array(z.string()).meta({ description: "The entity kinds asked for (GET /v1/redaction lists them)" }),
    entities: z.record(z.string(), z.number().int()).meta({ description: "Distinct entities replaced, per kind (kinds with none left out)" }),
    audio: z.boolean().meta({ description: "The stored recording is a copy with each redacted word silenced" }),
  })
  .nullable()
  .meta({ description: "Personal-data redaction: null when not requested" });

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
  redaction: redactionSchema.optional().meta({ description: "Extension: present when the meeting asked for personal-data redaction" }),
});

/** Extension: corrections of a transcript's words (the web app's inline editor, and the API). */
export const segmentParams = transcriptParams.extend({
  segment_index: z.coerce.number().int().min(0).max(1_000_000).meta({ description: "The segment's position in the transcript's segments, from 0." }),
});
export const correctSegmentBody = z.strictObject({ text: z.string().max(20_000).meta({ description: "The segment's words as they were said (1 to 5,000 characters once trimmed)." }) });
export const correctedSegmentSchema = segmentSchema.extend({
  object: z.literal("transcript_segment"),
  index: z.number().int(),
  version: z.number().int().meta({ description: "How many corrections this segment has had; 0 for the words as transcribed." }),
});
export const correctionListSchema = z.object({
  object: z.literal("list"),
  data: z.array(
    z.object({
      object: z.literal("transcript_correction"),
      segment_index: z.number().int(),
      version: z.number().int(),
      text: z.string(),
      previous_text: z.string(),
      author: z.object({ id: z.string(), email: z.string().nullable() }).meta({
        description: 'Who made the correction: a user, or id "system" (no email) for the replacements of the account glossary\'s spoken variants.',
      }),
      created_at: z.string(),
    }),
  ),
});
