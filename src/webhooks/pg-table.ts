// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, boolean, index, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";
import { DELIVERY_STATUSES } from "./table.ts";

/** Where an account's events are POSTed (SPEC 2, Webhook endpoint). */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    /** we_<random>. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    url: text("url").notNull(),
    /** Event types, or "*" for every type but ping. */
    events: text("events").$type<string[]>().notNull(),
    description: text("description"),
    enabled: boolean("enabled").notNull().default(true),
    disabledReason: text("disabled_reason", { enum: ["too_many_failures"] }),
    consecutiveFailures: bigint("consecutive_failures", { mode: "number" }).notNull().default(0),
    /** The signing secret (whsec_...): needed in clear to sign; the data dir is owner-only. */
    secret: text("secret").notNull(),
    /** The secret before the last rotation, which also signs until previous_secret_expires_at. */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: bigint("previous_secret_expires_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("webhook_endpoints_user").on(t.userId, t.createdAt)],
);

/**
 * One event to one endpoint, and its attempts so far: the retry table. A delivery due
 * (next_attempt_at passed; status pending or retrying) is sent by the dispatcher, also after a
 * restart: at least once.
 */
export const webhookDeliveries = pgTable(
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
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
    responseStatus: bigint("response_status", { mode: "number" }),
    responseBodyExcerpt: text("response_body_excerpt"),
    durationMs: bigint("duration_ms", { mode: "number" }),
    error: text("error"),
    /**
     * When the next attempt is due; null once succeeded or failed, and while the endpoint is
     * disabled (parked: re-enabling makes them due again), so due deliveries are found by index.
     */
    nextAttemptAt: bigint("next_attempt_at", { mode: "number" }),
    lastAttemptAt: bigint("last_attempt_at", { mode: "number" }),
    /** The dispatcher sending the current attempt, and until when (table.ts). */
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: bigint("lease_expires_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [
    index("webhook_deliveries_due").on(t.endpointId, t.nextAttemptAt),
    index("webhook_deliveries_endpoint").on(t.endpointId, t.createdAt, t.id),
    index("webhook_deliveries_event").on(t.eventId),
  ],
);
