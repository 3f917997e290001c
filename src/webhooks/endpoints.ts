import { and, desc, eq } from "drizzle-orm";
import type { Db, Queryable } from "../db/client.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import { ApiError } from "../errors/api-error.ts";
import { randomId } from "../lib/ids.ts";
import type { Clock } from "../lib/time.ts";
import { toRfc3339 } from "../lib/time.ts";
import { checkEgress, EgressRefused, type EgressPolicy, type Resolver } from "../net/egress.ts";
import type { CreateEndpointBody, PatchEndpointBody } from "./schema.ts";
import { parkDeliveries, unparkDeliveries } from "./deliveries.ts";
import { newWebhookSecret, PREVIOUS_SECRET_TTL_MS, secretHint } from "./secrets.ts";
import { webhookDeliveries, webhookEndpoints } from "./table.ts";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** Endpoints an account may register. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

export interface EndpointDeps {
  db: Queryable;
  clock: Clock;
  egress: EgressPolicy;
  resolve?: Resolver;
}

export function renderEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    object: "webhook_endpoint" as const,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    consecutive_failures: row.consecutiveFailures,
    secret_hint: secretHint(row.secret),
    created_at: toRfc3339(row.createdAt),
  };
}

/**
 * The URL must be https and resolve to public addresses only, unless the operator's allowlist
 * (--egress-allow) names the host (then http too): the same guard as audio_url. Deliveries check
 * it again each time, since DNS answers change.
 */
export async function assertDeliverableUrl(url: string, deps: Pick<EndpointDeps, "egress" | "resolve">): Promise<void> {
  try {
    await checkEgress(url, deps.egress, deps.resolve);
  } catch (error) {
    if (error instanceof EgressRefused) throw ApiError.validation([{ field: "url", code: error.code, message: error.message }]);
    throw error;
  }
}

export function getOwnedEndpoint(db: Queryable, userId: string, endpointId: string): EndpointRow {
  const row = db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.userId, userId)))
    .get();
  if (!row) throw ApiError.notFound(`Webhook endpoint ${endpointId}`);
  return row;
}

export function listEndpoints(db: Queryable, userId: string): EndpointRow[] {
  return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId)).orderBy(desc(webhookEndpoints.createdAt)).all();
}

/** Creates an endpoint, in the caller's transaction; the secret is returned this once. */
export function createEndpoint(tx: Queryable, clock: Clock, userId: string, body: CreateEndpointBody): EndpointRow {
  const existing = listEndpoints(tx, userId).length;
  if (existing >= MAX_ENDPOINTS_PER_ACCOUNT) {
    throw ApiError.validation([
      { field: "url", code: "too_many_endpoints", message: `An account may register at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints.` },
    ]);
  }
  const now = clock.now();
  const row: EndpointRow = {
    id: randomId("we"),
    userId,
    url: body.url,
    events: [...new Set(body.events)],
    description: body.description ?? null,
    enabled: true,
    disabledReason: null,
    consecutiveFailures: 0,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdAt: now,
    updatedAt: now,
  };
  tx.insert(webhookEndpoints).values(row).run();
  return row;
}

/** url, events, description, enabled; enabling a disabled endpoint clears its reason and failure count. */
export function patchEndpoint(db: Db, clock: Clock, userId: string, endpointId: string, body: PatchEndpointBody): EndpointRow {
  const row = getOwnedEndpoint(db, userId, endpointId);
  const values: Partial<EndpointRow> = { updatedAt: clock.now() };
  if (body.url !== undefined) values.url = body.url;
  if (body.events !== undefined) values.events = [...new Set(body.events)];
  if (body.description !== undefined) values.description = body.description;
  if (body.enabled === true) Object.assign(values, { enabled: true, disabledReason: null, consecutiveFailures: 0 });
  if (body.enabled === false) Object.assign(values, { enabled: false, disabledReason: null });
  db.transaction((tx) => {
    tx.update(webhookEndpoints).set(values).where(eq(webhookEndpoints.id, row.id)).run();
    if (body.enabled === false && row.enabled) parkDeliveries(tx, row.id);
    if (body.enabled === true && !row.enabled) unparkDeliveries(tx, row.id, values.updatedAt!);
  });
  return getOwnedEndpoint(db, userId, endpointId);
}

/** A new secret; the previous one keeps signing for 24 hours (both signatures are sent). */
export function rotateSecret(db: Queryable, clock: Clock, userId: string, endpointId: string): EndpointRow {
  const row = getOwnedEndpoint(db, userId, endpointId);
  const now = clock.now();
  db.update(webhookEndpoints)
    .set({ secret: newWebhookSecret(), previousSecret: row.secret, previousSecretExpiresAt: now + PREVIOUS_SECRET_TTL_MS, updatedAt: now })
    .where(eq(webhookEndpoints.id, row.id))
    .run();
  return getOwnedEndpoint(db, userId, endpointId);
}

/**
 * Deletes the endpoint (its URL, description and secrets) and its delivery log; undelivered events
 * are not sent to it any more. `wal` then truncates the write-ahead log, which still holds them.
 */
export function deleteEndpoint(db: Queryable, wal: WalTruncation, userId: string, endpointId: string): void {
  const row = getOwnedEndpoint(db, userId, endpointId);
  db.transaction((tx) => {
    tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, row.id)).run();
    tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, row.id)).run();
  });
  wal.afterDeletion();
}
