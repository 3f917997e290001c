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
