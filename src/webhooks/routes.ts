import type { Db } from "../db/client.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import { access, defineRoute } from "../http/route.ts";
import { hashRequest, type IdempotencyStore } from "../idempotency/service.ts";
import type { Clock } from "../lib/time.ts";
import type { EgressPolicy, Resolver } from "../net/egress.ts";
import { listDeliveries, renderDelivery } from "./deliveries.ts";
import { queuePing, type PingThrottle } from "./ping.ts";
import {
  assertDeliverableUrl,
  createEndpoint,
  deleteEndpoint,
  getOwnedEndpoint,
  listEndpoints,
  patchEndpoint,
  renderEndpoint,
  rotateSecret,
} from "./endpoints.ts";
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
  db: Db;
  /** Truncates the database's WAL after a deletion (db/wal-truncation.ts). */
  wal: WalTruncation;
  clock: Clock;
  egress: EgressPolicy;
  resolve?: Resolver;
  idempotency: IdempotencyStore;
  /** The delivery thread: told to look again, or to send a ping now. */
  dispatcher: { sendNow(deliveryId: string): void; wake(): void };
  /** Test pings per endpoint, shared with the web app's test button. */
  pings: PingThrottle;
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
      handle: ({ principal }) => ({ status: 200, body: { data: listEndpoints(deps.db, principal.user.id).map(renderEndpoint) } }),
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
        const userId = principal.user.id;
        const outcome = await deps.idempotency.run({
          userId,
          operation: "POST /v1/webhook_endpoints",
          key: request.headers.get("idempotency-key"),
          parse: async ({ replay }) => {
            if (!replay) await assertDeliverableUrl(body.url, deps);
            return { parsed: body, hash: hashRequest(body) };
          },
          execute: async (parsed, complete) => {
            let response: unknown;
            deps.db.transaction((tx) => {
              const row = createEndpoint(tx, deps.clock, userId, parsed);
              response = { ...renderEndpoint(row), secret: row.secret };
              complete(tx, { status: 201, body: response }, row.id);
            });
            return { status: 201, body: response };
          },
        });
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
      handle: ({ principal, params }) => ({ status: 200, body: renderEndpoint(getOwnedEndpoint(deps.db, principal.user.id, params.endpoint_id)) }),
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
      handle: async ({ principal, params, body }) => {
        getOwnedEndpoint(deps.db, principal.user.id, params.endpoint_id); // 404 before any DNS lookup
        if (body.url !== undefined) await assertDeliverableUrl(body.url, deps);
        const row = patchEndpoint(deps.db, deps.clock, principal.user.id, params.endpoint_id, body);
        // Re-enabled: the deliveries still due go now, not on the next tick.
        if (body.enabled === true) deps.dispatcher.wake();
        return { status: 200, body: renderEndpoint(row) };
      },
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
      handle: ({ principal, params }) => {
        deleteEndpoint(deps.db, deps.wal, principal.user.id, params.endpoint_id);
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
      handle: ({ principal, params, query }) => {
        const endpoint = getOwnedEndpoint(deps.db, principal.user.id, params.endpoint_id);
        return { status: 200, body: listDeliveries(deps.db, endpoint.id, query) };
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
      handle: ({ principal, params }) => {
        const row = rotateSecret(deps.db, deps.clock, principal.user.id, params.endpoint_id);
        return { status: 200, body: { ...renderEndpoint(row), secret: row.secret } };
      },
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
      handle: ({ principal, params }) => {
        const delivery = queuePing(deps.db, deps.clock, deps.pings, principal.user.id, params.endpoint_id);
        deps.dispatcher.sendNow(delivery.id);
        return { status: 202, body: renderDelivery(delivery) };
      },
    }),
  ];
}
