import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

export const DELIVERY_STATUSES = ["pending", "succeeded", "retrying", "failed"] as const;

/** Where an account's events are POSTed (SPEC 2, Webhook endpoint). */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    /** we_<random>. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    url: text("url").notNull(),
    /** Event types, or "*" for every type but ping. */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    description: text("description"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    disabledReason: text("disabled_reason", { enum: ["too_many_failures"] }),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** The signing secret (whsec_...): needed in clear to sign; the data dir is owner-only. */
    secret: text("secret").notNull(),
    /** The secret before the last rotation, which also signs until previous_secret_expires_at. */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: integer("previous_secret_expires_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_user").on(t.userId, t.createdAt)],
);

/**
 * One event to one endpoint, and its attempts so far: the retry table. A delivery due
 * (next_attempt_at passed; status pending or retrying) is sent by the dispatcher, also after a
 * restart: at least once.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    /** whd_<random>. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    responseStatus: integer("response_status"),
    responseBodyExcerpt: text("response_body_excerpt"),
    durationMs: integer("duration_ms"),
    error: text("error"),
    /**
     * When the next attempt is due; null once succeeded or failed, and while the endpoint is
     * disabled (parked: re-enabling makes them due again), so due deliveries are found by index.
     */
    nextAttemptAt: integer("next_attempt_at"),
    lastAttemptAt: integer("last_attempt_at"),
    /**
     * The dispatcher (one per node) sending the current attempt, and until when that claim holds:
     * exactly one node sends a given attempt, and a node killed mid-delivery leaves it to another
     * once the lease has run out (delivery-store.ts `claimDueDeliveries`).
     */
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("webhook_deliveries_due").on(t.endpointId, t.nextAttemptAt),
    index("webhook_deliveries_endpoint").on(t.endpointId, t.createdAt, t.id),
    index("webhook_deliveries_event").on(t.eventId),
  ],
);
