import { z } from "zod";

export const exportParams = z.object({ meeting_id: z.uuid("A meeting id is a UUID.") });

export const exportQuery = z.object({
  format: z.enum(["json", "md"]).default("json"),
  lang: z.enum(["en", "fr"]).default("fr"),
  max_tokens: z.coerce.number().int().min(2000).max(200_000).default(24_000),
});

/** SPEC's Export bundle; `tokenizer` and `max_tokens` say what the token figures count. */
export const exportSchema = z.object({
  object: z.literal("export"),
  meeting_id: z.string(),
  tokenizer: z.string().meta({ description: "The tokenizer parts are measured with: o200k_base (GPT-4o family), via gpt-tokenizer." }),
  max_tokens: z.number().int(),
  priming_prompt: z.string(),
  total_tokens: z.number().int().meta({ description: "Exact for the tokenizer named: the priming prompt and every part." }),
  parts: z.array(
    z.object({
      part: z.number().int(),
      of: z.number().int(),
      tokens: z.number().int(),
      content: z.string().meta({ description: "Markdown; opens with which meeting and which part it is." }),
    }),
  ),
});
