import { z } from "zod";
import { SCOPES } from "../auth/scopes.ts";
import { PLANS } from "../auth/plans.ts";

export const userSchema = z.object({
  id: z.string(),
  object: z.literal("user"),
  email: z.string(),
  name: z.string().nullable(),
  created_at: z.string(),
});

export const accountSchema = z.object({
  object: z.literal("account"),
  user: userSchema,
  plan: z.enum(PLANS),
  credential: z.object({
    type: z.enum(["api_key", "oauth"]),
    id: z.string(),
    name: z.string().nullable(),
    scopes: z.array(z.enum(SCOPES)),
    expires_at: z.string().nullable(),
  }),
  rate_limit: z.object({
    limit: z.number().int(),
    remaining: z.number().int(),
    reset: z.number().int(),
    window_seconds: z.number().int(),
  }),
  api_version: z.string(),
});
