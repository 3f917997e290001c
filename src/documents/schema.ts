import { z } from "zod";
import { metadataInput } from "../http/metadata.ts";
import { pageSchema, paginationQuery } from "../http/pagination.ts";
import { DOCUMENT_FORMATS } from "./resource.ts";

/** A custom prompt's limit (SPEC 8). */
export const MAX_DOCUMENT_PROMPT_CHARS = 20_000;

export const documentRequestParams = z.object({ meeting_id: z.uuid("A meeting id is a UUID.") });

export const documentRequestBody = z
  .strictObject({
    template_id: z.string().min(1).max(100).optional(),
    prompt: z.string().trim().min(1).max(MAX_DOCUMENT_PROMPT_CHARS).optional(),
    title: z.string().trim().min(1).max(300).optional(),
    instructions: z
      .string()
      .trim()
      .min(1)
      .max(4000)
      .optional()
      .meta({ description: "Extra guidance appended to the template's (or the prompt's) task, e.g. 'address it to the client, formal tone'." }),
    include_transcript: z
      .boolean()
      .default(false)
      .meta({ description: "true: the model reads the transcript besides the AI report (taking notes part by part when it is long). Slower; more detail." }),
    metadata: metadataInput.nullish(),
  })
  .superRefine((body, ctx) => {
    if ((body.template_id === undefined) === (body.prompt === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: body.template_id === undefined ? ["template_id"] : ["prompt"],
        message: "Give either template_id or prompt (one of them, not both).",
        params: { code: "template_or_prompt" },
      });
    }
  });
export type DocumentRequestBody = z.infer<typeof documentRequestBody>;

export const listDocumentsQuery = z.object({
  ...paginationQuery(20),
  meeting_id: z.uuid("A meeting id is a UUID.").optional(),
});

export const documentParams = z.object({ document_id: z.string().max(100) });
export const documentQuery = z.object({ format: z.enum(DOCUMENT_FORMATS).default("json") });

export const documentSchema = z.object({
  id: z.string(),
  object: z.literal("document"),
  meeting_id: z.string(),
  title: z.string(),
  template_id: z.string().nullable(),
  language: z.string().nullable(),
  model: z.string().nullable(),
  formats: z.array(z.enum(DOCUMENT_FORMATS)),
  created_at: z.string(),
  updated_at: z.string(),
});
export const documentWithMarkdownSchema = documentSchema.extend({ markdown: z.string() });
export const documentPageSchema = pageSchema(documentSchema);
