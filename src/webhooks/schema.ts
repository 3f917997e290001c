import { z } from "zod";
import { EVENT_TYPES } from "../events/types.ts";
import { pageSchema, paginationQuery } from "../http/pagination.ts";
import { DELIVERY_STATUSES } from "./table.ts";

/** Types an endpoint may subscribe to: each event type but ping (sent only by .../test), or "*". */
const SUBSCRIBABLE = [...EVENT_TYPES.filter((t) => t !== "ping"), "*"] as const;

const url = z.url({ protocol: /^https?$/, message: "A webhook URL is an absolute https URL." }).max(2048);
const events = z.array(z.enum(SUBSCRIBABLE)).min(1).max(SUBSCRIBABLE.length);
const description = z.string().trim().max(500).nullable();

export const createEndpointBody = z.strictObject({ url, events, description: description.optional() });
export type CreateEndpointBody = z.infer<typeof createEndpointBody>;

export const patchEndpointBody = z
  .strictObject({ url: url.optional(), events: events.optional(), description: description.optional(), enabled: z.boolean().optional() })
  .refine((body) => Object.values(body).some((v) => v !== undefined), { message: "Give at least one of url, events, description, enabled." });
export type PatchEndpointBody = z.infer<typeof patchEndpointBody>;

export const endpointParams = z.object({ endpoint_id: z.string().max(100) });
export const deliveriesQuery = z.object({ ...paginationQuery(20) });

export const endpointSchema = z.object({
  id: z.string(),
  object: z.literal("webhook_endpoint"),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabled_reason: z.enum(["too_many_failures"]).nullable(),
  consecutive_failures: z.number().int(),
  secret_hint: z.string(),
  created_at: z.string(),
});
export const endpointWithSecretSchema = endpointSchema.extend({ secret: z.string().meta({ description: "Shown only here: keep it to verify signatures." }) });
export const endpointListSchema = z.object({ data: z.array(endpointSchema) });

export const deliverySchema = z.object({
  id: z.string(),
  object: z.literal("webhook_delivery"),
  endpoint_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  response_status: z.number().int().nullable(),
  response_body_excerpt: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable(),
  next_retry_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  created_at: z.string(),
});
export const deliveryPageSchema = pageSchema(deliverySchema);
