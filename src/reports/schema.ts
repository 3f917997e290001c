import { z } from "zod";

export const reportParams = z.object({ meeting_id: z.uuid("A meeting id is a UUID.") });
export const reportQuery = z.object({ format: z.enum(["json", "md"]).default("json") });

/** The published shape of the report: SPEC's Summary object. */
export const reportSchema = z.object({
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
