import { toRfc3339 } from "../lib/time.ts";
import type { DeliveryRow } from "./delivery-store.ts";
import type { EndpointRow } from "./endpoint-store.ts";
import { secretHint } from "./secrets.ts";

/** An endpoint as the API shows it (SPEC 2): never its secret, only a hint of it. */
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

/** The answer that creates an endpoint or rotates its secret: the one time the secret is shown. */
export function renderEndpointWithSecret(row: EndpointRow) {
  return { ...renderEndpoint(row), secret: row.secret };
}

export type RenderedEndpoint = ReturnType<typeof renderEndpoint>;
export type RenderedEndpointWithSecret = ReturnType<typeof renderEndpointWithSecret>;

export function renderDelivery(row: DeliveryRow) {
  const time = (ms: number | null) => (ms === null ? null : toRfc3339(ms));
  return {
    id: row.id,
    object: "webhook_delivery" as const,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    response_status: row.responseStatus,
    response_body_excerpt: row.responseBodyExcerpt,
    duration_ms: row.durationMs,
    error: row.error,
    next_retry_at: row.status === "retrying" ? time(row.nextAttemptAt) : null,
    last_attempt_at: time(row.lastAttemptAt),
    created_at: toRfc3339(row.createdAt),
  };
}

export type RenderedDelivery = ReturnType<typeof renderDelivery>;
