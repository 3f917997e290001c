import { z } from "zod";
import { queryBoolean } from "../http/route.ts";

export const listClientsQuery = z.object({
  include_archived: queryBoolean.default(false),
  q: z.string().max(300).optional(),
});

export const clientSchema = z.object({
  id: z.string(),
  object: z.literal("client"),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  is_archived: z.boolean(),
  legal_hold: z.boolean().meta({ description: "Extension (issue 23): the folder is under a legal hold; none of its meetings is deleted until it is lifted" }),
});

export const clientParams = z.object({ client_id: z.string().regex(/^cli_\d{1,15}$/) });

/** PATCH /v1/clients/{client_id}: archive a client folder (hidden from the list) or bring it back; set or lift its legal hold. */
export const patchClientBody = z
  .strictObject({
    is_archived: z.boolean().optional().meta({ description: "true archives the client (GET /v1/clients hides it unless include_archived=true); false brings it back" }),
    legal_hold: z
      .boolean()
      .optional()
      .meta({ description: "Extension (issue 23): true puts the folder under a legal hold (none of its meetings is deleted, by its owner or by retention); false lifts it" }),
  })
  .refine((body) => body.is_archived !== undefined || body.legal_hold !== undefined, { message: "Send is_archived, legal_hold or both.", path: ["is_archived"], params: { code: "required" } });
