/**
 * The webhooks use cases, called by the API routes (routes.ts) and the web app's Settings, Webhooks
 * page alike: each takes who is acting, does its checks, its transaction and its events, and tells
 * the delivery thread what it must know (look again, send this ping now).
 */
import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_AUDIT_TRAIL, type AuditTrail } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import { withTx, type Conn } from "../db/conn.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import { ApiError } from "../errors/api-error.ts";
import { recordEvent, markFannedOut } from "../events/store.ts";
import type { Page } from "../http/pagination.ts";
import { hashRequest, type IdempotencyStore } from "../idempotency/service.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { checkEgress, EgressRefused, type EgressPolicy, type Resolver } from "../net/egress.ts";
import { deliveriesPage, parkDeliveries, queueDelivery, unparkDeliveries, type DeliveryRow } from "./delivery-store.ts";
import {
  countEndpoints,
  deleteEndpointAndDeliveries,
  findOwnedEndpoint,
  insertEndpoint,
  listEndpoints,
  updateEndpoint,
  type EndpointRow,
} from "./endpoint-store.ts";
import type { PingThrottle } from "./ping.ts";
import { renderEndpointWithSecret, type RenderedEndpointWithSecret } from "./render.ts";
import type { CreateEndpointBody, PatchEndpointBody } from "./schema.ts";
import { newWebhookSecret, PREVIOUS_SECRET_TTL_MS } from "./secrets.ts";

// What a front end needs besides the use cases: the API's shapes (the web pages show the same
// fields) and the form's schema, so that the web app imports this module only.
export { renderDelivery, renderEndpoint, type RenderedDelivery, type RenderedEndpoint } from "./render.ts";
export { createEndpointBody } from "./schema.ts";
/** The event types an endpoint may subscribe to (the web app's form lists them). */
export { EVENT_TYPES } from "../events/types.ts";
export type { DeliveryRow, EndpointRow };

/** Endpoints an account may register. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

export interface WebhooksDeps {
  conn: Conn;
  clock: Clock;
  egress: EgressPolicy;
  resolve?: Resolver;
  idempotency: Pick<IdempotencyStore, "run">;
  /** Truncates the database's WAL after a deletion (db/wal-truncation.ts). */
  wal: WalTruncation;
  /** The delivery thread: told to look again, or to send a ping now. */
  dispatcher: { sendNow(deliveryId: string): void; wake(): void };
  /** Test pings per endpoint, one count for the API's .../test and the web app's test button. */
  pings: PingThrottle;
  /** Where endpoints created and deleted are recorded (audit/trail.ts). */
  audit?: AuditTrail;
}

/** A created endpoint as answered (with its secret, this once), and whether it is the replay of an earlier request. */
export interface CreatedEndpoint {
  status: number;
  body: RenderedEndpointWithSecret;
  replayed: boolean;
}

export type WebhooksApp = ReturnType<typeof webhooksApp>;

/**
 * The URL must be https and resolve to public addresses only, unless the operator's allowlist
 * (--egress-allow) names the host (then http too): the same guard as audio_url. Deliveries check
 * it again each time, since DNS answers change.
 */
export async function assertDeliverableUrl(url: string, deps: Pick<WebhooksDeps, "egress" | "resolve">): Promise<void> {
  try {
    await checkEgress(url, deps.egress, deps.resolve);
  } catch (error) {
    if (error instanceof EgressRefused) throw ApiError.validation([{ field: "url", code: error.code, message: error.message }]);
    throw error;
  }
}

export function webhooksApp(deps: WebhooksDeps) {
  const { conn, clock } = deps;
  const audit = deps.audit ?? NO_AUDIT_TRAIL;

  async function owned(c: Conn, actor: Actor, endpointId: string): Promise<EndpointRow> {
    const row = await findOwnedEndpoint(c, actor.account.userId, endpointId);
    if (!row) throw ApiError.notFound(`Webhook endpoint ${endpointId}`);
    return row;
  }

  return {
    /** The account's endpoints, newest first. */
    list(actor: Actor): Promise<EndpointRow[]> {
      return listEndpoints(conn, actor.account.userId);
    },

    /** One of the account's endpoints; 404 when it is not the account's. */
    get(actor: Actor, endpointId: string): Promise<EndpointRow> {
      return owned(conn, actor, endpointId);
    },

    /**
     * Registers an endpoint (its URL checked first, its count bounded), with the Idempotency-Key
     * when the caller sent one: a replay answers the first response, secret included. The secret
     * is shown in this answer only.
     */
    createEndpoint(actor: Actor, body: CreateEndpointBody, options: { idempotencyKey: string | null } = { idempotencyKey: null }): Promise<CreatedEndpoint> {
      const userId = actor.account.userId;
      return deps.idempotency
        .run({
          userId,
          operation: "POST /v1/webhook_endpoints",
          key: options.idempotencyKey,
          parse: async ({ replay }) => {
            if (!replay) await assertDeliverableUrl(body.url, deps);
            return { parsed: body, hash: hashRequest(body) };
          },
          execute: (parsed, complete) =>
            withTx(conn, async (tx) => {
              if ((await countEndpoints(tx, userId)) >= MAX_ENDPOINTS_PER_ACCOUNT) {
                throw ApiError.validation([
                  { field: "url", code: "too_many_endpoints", message: `An account may register at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints.` },
                ]);
              }
              const now = clock.now();
              const row: EndpointRow = {
                id: randomId("we"),
                userId,
                url: parsed.url,
                events: [...new Set(parsed.events)],
                description: parsed.description ?? null,
                enabled: true,
                disabledReason: null,
                consecutiveFailures: 0,
                secret: newWebhookSecret(),
                previousSecret: null,
                previousSecretExpiresAt: null,
                createdAt: now,
                updatedAt: now,
              };
              await insertEndpoint(tx, row);
              const response = { status: 201, body: renderEndpointWithSecret(row) };
              await complete(tx, response, row.id);
              return response;
            }),
        })
        .then(async (outcome) => {
          const body = outcome.body as RenderedEndpointWithSecret;
          // The endpoint's id only: its URL may carry a token of the receiver's.
          if (!outcome.replayed) await audit.record(actorEntry(actor, AUDIT_ACTIONS.webhookCreated, { type: "webhook_endpoint", id: body.id }));
          return { status: outcome.status, body, replayed: outcome.replayed };
        });
    },

    /**
     * url, events, description, enabled: the endpoint must be the account's (404 before any DNS
     * lookup), a new URL deliverable. Enabling a disabled endpoint clears its reason and failure
     * count and makes its parked deliveries due (the thread is told to look now); disabling parks them.
     */
    async update(actor: Actor, endpointId: string, body: PatchEndpointBody): Promise<EndpointRow> {
      await owned(conn, actor, endpointId);
      if (body.url !== undefined) await assertDeliverableUrl(body.url, deps);
      const updated = await withTx(conn, async (tx) => {
        const row = await owned(tx, actor, endpointId);
        const values: Partial<EndpointRow> = { updatedAt: clock.now() };
        if (body.url !== undefined) values.url = body.url;
        if (body.events !== undefined) values.events = [...new Set(body.events)];
        if (body.description !== undefined) values.description = body.description;
        if (body.enabled === true) Object.assign(values, { enabled: true, disabledReason: null, consecutiveFailures: 0 });
        if (body.enabled === false) Object.assign(values, { enabled: false, disabledReason: null });
        await updateEndpoint(tx, row.id, values);
        if (body.enabled === false && row.enabled) await parkDeliveries(tx, row.id);
        if (body.enabled === true && !row.enabled) await unparkDeliveries(tx, row.id, values.updatedAt!);
        return owned(tx, actor, endpointId);
      });
      // Re-enabled: the deliveries still due go now, not on the next tick.
      if (body.enabled === true) deps.dispatcher.wake();
      return updated;
    },

    /** A new secret; the previous one keeps signing for 24 hours (both signatures are sent). */
    rotateSecret(actor: Actor, endpointId: string): Promise<EndpointRow> {
      return withTx(conn, async (tx) => {
        const row = await owned(tx, actor, endpointId);
        const now = clock.now();
        await updateEndpoint(tx, row.id, { secret: newWebhookSecret(), previousSecret: row.secret, previousSecretExpiresAt: now + PREVIOUS_SECRET_TTL_MS, updatedAt: now });
        return owned(tx, actor, endpointId);
      });
    },

    /**
     * Deletes the endpoint (its URL, description and secrets) and its delivery log; undelivered
     * events are not sent to it any more. The write-ahead log, which still holds them, is truncated.
     */
    async delete(actor: Actor, endpointId: string): Promise<void> {
      const row = await owned(conn, actor, endpointId);
      await deleteEndpointAndDeliveries(conn, row.id);
      deps.wal.afterDeletion();
      await audit.record(actorEntry(actor, AUDIT_ACTIONS.webhookDeleted, { type: "webhook_endpoint", id: row.id }));
    },

    /**
     * A signed test ping to one of the account's endpoints (at most PINGS_PER_ENDPOINT_PER_WINDOW
     * a window, then 429 rate_limited): a ping event marked as fanned out already, so only this
     * endpoint gets it, and its delivery, which the delivery thread is asked to send now, within
     * the same bounds as every delivery (in flight overall and per endpoint; beyond them it waits its turn).
     */
    async ping(actor: Actor, endpointId: string): Promise<DeliveryRow> {
      const endpoint = await owned(conn, actor, endpointId);
      const now = clock.now();
      deps.pings.admit(endpoint.id, now);
      const delivery = await withTx(conn, async (tx) => {
        const event = await recordEvent(tx, {
          userId: endpoint.userId,
          type: "ping",
          now,
          object: { object: "ping", message: `Test event for webhook endpoint ${endpoint.id}.`, endpoint_id: endpoint.id },
        });
        await markFannedOut(tx, event.id, now);
        return queueDelivery(tx, { userId: endpoint.userId, endpointId: endpoint.id, eventId: event.id, eventType: "ping", now });
      });
      deps.dispatcher.sendNow(delivery.id);
      return delivery;
    },

    /** The endpoint (the account's) and a page of its deliveries of the last 30 days, newest first. */
    async deliveries(actor: Actor, endpointId: string, page: { limit: number; cursor?: string }): Promise<{ endpoint: EndpointRow; page: Page<DeliveryRow> }> {
      const endpoint = await owned(conn, actor, endpointId);
      return { endpoint, page: await deliveriesPage(conn, endpoint.id, page) };
    },
  };
}
