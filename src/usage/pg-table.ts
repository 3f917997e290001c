// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { users } from "../auth/pg-table.ts";
import { jobs } from "../jobs/pg-table.ts";
import { OPERATIONS } from "./table.ts";

/**
 * One immutable line per metered operation (SPEC 2, Ledger): ids, quantities, the rates applied and
 * money only, never meeting content, so a line outlives its meeting without keeping what was
 * deleted. A trigger (migrations/0009_usage.sql) refuses any UPDATE or DELETE. Money is integer minor units.
 */
export const ledgerLines = pgTable(
  "ledger_lines",
  {
    /** led_<random>. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /** The UTC month the operation was debited in, YYYY-MM. */
    period: text("period").notNull(),
    /** api, or webapp (its own quota: never debited from the API wallet). */
    channel: text("channel", { enum: ["api", "webapp"] }).notNull(),
    operation: text("operation", { enum: OPERATIONS }).notNull(),
    meetingId: text("meeting_id"),
    jobId: text("job_id"),
    audioSeconds: bigint("audio_seconds", { mode: "number" }).notNull().default(0),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
    model: text("model"),
    /** The unit price applied: minor units per hour of audio, or per million tokens. */
    unitRate: bigint("unit_rate", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    cost: bigint("cost", { mode: "number" }).notNull(),
    /** How the cost was paid: from the wallet, on demand, and written off above the spend cap. */
    paidWallet: bigint("paid_wallet", { mode: "number" }).notNull(),
    paidOnDemand: bigint("paid_on_demand", { mode: "number" }).notNull(),
    writtenOff: bigint("written_off", { mode: "number" }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("ledger_user_period").on(t.userId, t.period, t.createdAt, t.id)],
);

/** An account's on-demand billing: its spend cap per month (null: no on-demand billing). */
export const spendCaps = pgTable("spend_caps", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  capMinor: bigint("cap_minor", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

/** Credits an administrator granted, added to the wallet of the month they were granted in. */
export const creditGrants = pgTable(
  "credit_grants",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    period: text("period").notNull(),
    amountMinor: bigint("amount_minor", { mode: "number" }).notNull(),
    note: text("note"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("credit_grants_user_period").on(t.userId, t.period)],
);

/** The usage alerts sent, so each threshold is announced at most once per account and month. */
export const usageAlerts = pgTable(
  "usage_alerts",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    period: text("period").notNull(),
    /** wallet_50, wallet_80, wallet_100, spend_cap_80, spend_cap_100. */
    alert: text("alert").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.period, t.alert] })],
);

/**
 * What an admitted job is expected to cost, held against the account until the job ends (issue
 * 20): the API wallet's minor units, or the web app's seconds of audio and documents. Written in
 * the transaction that admits the job; lowered as each of its operations is debited (usage/meter-store.ts);
 * removed by triggers (migrations/0012_usage_reservations.sql) in the very transaction that
 * ends the job (completed, failed, canceled) or deletes it, so a crash never leaves one behind and
 * a restart finds every reservation of a job still running. Not ledger lines: those are immutable.
 */
export const usageReservations = pgTable(
  "usage_reservations",
  {
    jobId: text("job_id")
      .primaryKey()
      .references(() => jobs.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    channel: text("channel", { enum: ["api", "webapp"] }).notNull(),
    /** API: minor units still expected (wallet first, then on demand). 0 for the web app. */
    amountMinor: bigint("amount_minor", { mode: "number" }).notNull().default(0),
    /** Web app: seconds of audio still expected. */
    audioSeconds: bigint("audio_seconds", { mode: "number" }).notNull().default(0),
    /** Web app: documents (and reports written on demand) still expected. */
    documents: bigint("documents", { mode: "number" }).notNull().default(0),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("usage_reservations_user").on(t.userId, t.channel)],
);
