import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";
import { jobs } from "../jobs/table.ts";

export const OPERATIONS = ["transcription", "report", "document"] as const;

/**
 * One immutable line per metered operation (SPEC 2, Ledger): ids, quantities, the rates applied and
 * money only, never meeting content, so a line outlives its meeting without keeping what was
 * deleted. A trigger (migrations/0009_usage.sql) refuses any UPDATE or DELETE. Money is integer minor units.
 */
export const ledgerLines = sqliteTable(
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
    audioSeconds: integer("audio_seconds").notNull().default(0),
    promptTokens: integer("prompt_tokens").notNull().default(0),
    completionTokens: integer("completion_tokens").notNull().default(0),
    model: text("model"),
    /** The unit price applied: minor units per hour of audio, or per million tokens. */
    unitRate: integer("unit_rate").notNull(),
    currency: text("currency").notNull(),
    cost: integer("cost").notNull(),
    /** How the cost was paid: from the wallet, on demand, and written off above the spend cap. */
    paidWallet: integer("paid_wallet").notNull(),
    paidOnDemand: integer("paid_on_demand").notNull(),
    writtenOff: integer("written_off").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("ledger_user_period").on(t.userId, t.period, t.createdAt, t.id)],
);

/** An account's on-demand billing: its spend cap per month (null: no on-demand billing). */
export const spendCaps = sqliteTable("spend_caps", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  capMinor: integer("cap_minor").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Credits an administrator granted, added to the wallet of the month they were granted in. */
export const creditGrants = sqliteTable(
  "credit_grants",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    period: text("period").notNull(),
    amountMinor: integer("amount_minor").notNull(),
    note: text("note"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("credit_grants_user_period").on(t.userId, t.period)],
);

/** The usage alerts sent, so each threshold is announced at most once per account and month. */
export const usageAlerts = sqliteTable(
  "usage_alerts",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    period: text("period").notNull(),
    /** wallet_50, wallet_80, wallet_100, spend_cap_80, spend_cap_100. */
    alert: text("alert").notNull(),
    createdAt: integer("created_at").notNull(),
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
export const usageReservations = sqliteTable(
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
    amountMinor: integer("amount_minor").notNull().default(0),
    /** Web app: seconds of audio still expected. */
    audioSeconds: integer("audio_seconds").notNull().default(0),
    /** Web app: documents (and reports written on demand) still expected. */
    documents: integer("documents").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("usage_reservations_user").on(t.userId, t.channel)],
);
