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
});

export const clientParams = z.object({ client_id: z.string().regex(/^cli_\d{1,15}$/) });

/** PATCH /v1/clients/{client_id}: archive a client folder (hidden from the list) or bring it back. */
export const patchClientBody = z.strictObject({
  is_archived: z.boolean().meta({ description: "true archives the client (GET /v1/clients hides it unless include_archived=true); false brings it back" }),
});
