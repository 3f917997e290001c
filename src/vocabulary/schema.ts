import { z } from "zod";

/** Terms one account's glossary may hold: whisper's prompt takes far fewer, the replacement all. */
export const MAX_TERMS = 500;
/** Characters (code points) of a term and of each spoken variant. */
export const MAX_TERM_CHARS = 100;
/** Spoken variants of one term. */
export const MAX_VARIANTS = 10;
/** Extra terms one meeting may be created with (POST /v1/meetings `vocabulary`). */
export const MAX_MEETING_TERMS = 50;

/** A term or a variant: one line, spaces folded, 1 to 100 characters as people count them. */
export const termText = z
  .string()
  .transform((v) => v.normalize("NFC").replace(/\s+/gu, " ").trim())
  .pipe(
    z
      .string()
      .min(1, "A term has at least one character.")
      .refine((v) => [...v].length <= MAX_TERM_CHARS, { message: `At most ${MAX_TERM_CHARS} characters.`, params: { code: "too_long" } })
      .refine((v) => /[\p{L}\p{N}]/u.test(v), { message: "A term holds at least one letter or digit." })
      .refine((v) => !/\p{Cc}/u.test(v), { message: "A term holds no control character." }),
  );

const variants = z.array(termText).max(MAX_VARIANTS).meta({
  description: `What the recognition writes instead of the term ("cooper netties" for Kubernetes), at most ${MAX_VARIANTS}; replaced by the term in a finished transcript (whole words, any case). Case duplicates are folded.`,
});

export const createTermBody = z.strictObject({
  term: termText.meta({ description: `The term as it must be written, 1 to ${MAX_TERM_CHARS} characters.` }),
  variants: variants.default([]),
});
export type CreateTermBody = z.output<typeof createTermBody>;

export const patchTermBody = z
  .strictObject({ term: termText.optional(), variants: variants.optional() })
  .refine((body) => body.term !== undefined || body.variants !== undefined, { message: "Give term, variants or both." });
export type PatchTermBody = z.output<typeof patchTermBody>;

export const termParams = z.object({ term_id: z.string().regex(/^voc_\d{1,15}$/, "A term id looks like voc_12.") });

export const termSchema = z.object({
  id: z.string(),
  object: z.literal("vocabulary_term"),
  term: z.string(),
  variants: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});
export const termListSchema = z.object({ object: z.literal("list"), data: z.array(termSchema) });

/** POST /v1/meetings `vocabulary`: this meeting's extra terms, most specific first in whisper's prompt. */
export const meetingVocabulary = z.array(termText).max(MAX_MEETING_TERMS).meta({
  description: `Extension: up to ${MAX_MEETING_TERMS} terms (1 to ${MAX_TERM_CHARS} characters each) for this meeting only, given to whisper before the account's glossary.`,
});
