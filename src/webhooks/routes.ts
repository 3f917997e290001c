import { apiActor } from "../auth/actor.ts";
import { access, defineRoute } from "../http/route.ts";
import type { WebhooksApp } from "./app.ts";
import { renderDelivery, renderEndpoint, renderEndpointWithSecret } from "./render.ts";
import {
  createEndpointBody,
  deliveriesQuery,
  deliveryPageSchema,
  deliverySchema,
  endpointListSchema,
  endpointParams,
  endpointSchema,
  endpointWithSecretSchema,
  patchEndpointBody,
} from "./schema.ts";

export interface WebhookRouteDeps {
  /** The webhooks use cases (app.ts), shared with the web app's Settings, Webhooks page. */
  webhooks: WebhooksApp;
}

export function webhookRoutes(deps: WebhookRouteDeps) {
  const scope = access.allOf("webhooks");
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/webhook_endpoints",
      operationId: "listWebhookEndpoints",
      summary: "The account's webhook endpoints, newest first (never their secrets)",
      tag: "Webhooks",
      access: scope,
      responses: { 200: { description: "The endpoints", schema: endpointListSchema } },
      handle: async ({ principal }) => ({ status: 200, body: { data: (await deps.webhooks.list(apiActor(principal))).map(renderEndpoint) } }),
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/webhook_endpoints",
      operationId: "createWebhookEndpoint",
      summary: "Register an endpoint (https, public address); its signing secret is shown only in this answer",
      tag: "Webhooks",
      access: scope,
      body: createEndpointBody,
      responses: { 201: { description: "The endpoint, with its secret", schema: endpointWithSecretSchema } },
      errors: ["idempotency_key_in_use", "idempotency_key_reused", "malformed_body", "unsupported_media_type"],
      handle: async ({ principal, body, request }) => {
        const outcome = await deps.webhooks.createEndpoint(apiActor(principal), body, { idempotencyKey: request.headers.get("idempotency-key") });
        return { status: outcome.status, body: outcome.body, headers: outcome.replayed ? { "Idempotent-Replayed": "true" } : undefined };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/webhook_endpoints/:endpoint_id",
      operationId: "getWebhookEndpoint",
      summary: "One webhook endpoint",
      tag: "Webhooks",
      access: scope,
      params: endpointParams,
      responses: { 200: { description: "The endpoint", schema: endpointSchema } },
      handle: async ({ principal, params }) => ({ status: 200, body: renderEndpoint(await deps.webhooks.get(apiActor(principal), params.endpoint_id)) }),
    }),
    defineRoute({
      method: "PATCH",
      path: "/api/v1/webhook_endpoints/:endpoint_id",
      operationId: "updateWebhookEndpoint",
      summary: "Change url, events, description, or enabled (true re-enables a disabled endpoint and resets its failure count)",
      tag: "Webhooks",
      access: scope,
      params: endpointParams,
      body: patchEndpointBody,
      responses: { 200: { description: "The endpoint", schema: endpointSchema } },
      errors: ["malformed_body", "unsupported_media_type"],
      handle: async ({ principal, params, body }) => ({ status: 200, body: renderEndpoint(await deps.webhooks.update(apiActor(principal), params.endpoint_id, body)) }),
    }),
    defineRoute({
      method: "DELETE",
      path: "/api/v1/webhook_endpoints/:endpoint_id",
      operationId: "deleteWebhookEndpoint",
      summary: "Delete the endpoint and its delivery log",
      tag: "Webhooks",
      access: scope,
      params: endpointParams,
      responses: { 204: { description: "Deleted" } },
      handle: async ({ principal, params }) => {
        await deps.webhooks.delete(apiActor(principal), params.endpoint_id);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/webhook_endpoints/:endpoint_id/deliveries",
      operationId: "listWebhookDeliveries",
      summary: "The endpoint's deliveries of the last 30 days, newest first",
      tag: "Webhooks",
      access: scope,
      params: endpointParams,
      query: deliveriesQuery,
      responses: { 200: { description: "A page of deliveries", schema: deliveryPageSchema } },
      handle: async ({ principal, params, query }) => {
        const { page } = await deps.webhooks.deliveries(apiActor(principal), params.endpoint_id, query);
        return { status: 200, body: { ...page, data: page.data.map(renderDelivery) } };
      },
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/webhook_endpoints/:endpoint_id/rotate_secret",
      operationId: "rotateWebhookSecret",
      summary: "A new signing secret; the previous one keeps signing for 24 hours (both signatures sent)",
      tag: "Webhooks",
      access: scope,
      params: endpointParams,
      responses: { 200: { description: "The endpoint, with its new secret", schema: endpointWithSecretSchema } },
      handle: async ({ principal, params }) => ({
        status: 200,
        body: renderEndpointWithSecret(await deps.webhooks.rotateSecret(apiActor(principal), params.endpoint_id)),
      }),
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/webhook_endpoints/:endpoint_id/test",
      operationId: "testWebhookEndpoint",
      summary:
        "Send a signed ping event to this endpoint now: within the delivery bounds (8 in flight, 2 per endpoint; beyond them it is queued), at most 20 per endpoint per 60 s (then 429 rate_limited with Retry-After)",
      tag: "Webhooks",
      access: scope,
      params: endpointParams,
      responses: { 202: { description: "The ping's delivery, being sent", schema: deliverySchema } },
      handle: async ({ principal, params }) => ({ status: 202, body: renderDelivery(await deps.webhooks.ping(apiActor(principal), params.endpoint_id)) }),
    }),
  ];
}
