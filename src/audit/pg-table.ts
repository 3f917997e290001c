// The PostgreSQL twin of table.ts (issue 22): the same tables, columns, nullability and indexes,
// checked by src/db/schema-parity.test.ts. Stores query through table.ts on both dialects (db/conn.ts);
// this file feeds drizzle-kit the PostgreSQL migrations (migrations/postgres/) and the parity test.
import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { AUDIT_CHANNELS, AUDIT_CREDENTIAL_TYPES } from "./types.ts";

/** The audit trail: see table.ts. Triggers (migrations/postgres, hand-written) keep it append-only. */
export const auditEntries = pgTable(
  "audit_entries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    at: bigint("at", { mode: "number" }).notNull(),
    accountId: text("account_id").notNull(),
    actorUserId: text("actor_user_id"),
    credentialType: text("credential_type", { enum: AUDIT_CREDENTIAL_TYPES }).notNull(),
    credentialId: text("credential_id"),
    channel: text("channel", { enum: AUDIT_CHANNELS }).notNull(),
    action: text("action").notNull(),
    resourceType: text("resource_type"),
    resourceId: text("resource_id"),
    clientAddress: text("client_address"),
    detail: text("detail"),
  },
  (t) => [index("audit_entries_account_at").on(t.accountId, t.at, t.id), index("audit_entries_at").on(t.at)],
);

/** See table.ts: the purge's cutoff, set only inside its transaction. */
export const auditPurgeCutoff = pgTable("audit_purge_cutoff", {
  id: bigint("id", { mode: "number" }).primaryKey().default(1),
  cutoff: bigint("cutoff", { mode: "number" }).notNull(),
});
