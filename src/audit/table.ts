import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { AUDIT_CHANNELS, AUDIT_CREDENTIAL_TYPES } from "./types.ts";

/**
 * The audit trail (issue 23): one row per read of a meeting's content, per change, sign-in and
 * credential event; ids, names of actions and addresses only, never content. Append-only:
 * triggers (a custom migration) refuse any UPDATE, and any DELETE but the retention purge's
 * (audit_purge_cutoff below). `account_id` is no foreign key and not named `user_id`, on purpose:
 * the trail of an account outlives the account (admin user delete) until its retention ends.
 */
export const auditEntries = sqliteTable(
  "audit_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** When it happened (ms). */
    at: integer("at").notNull(),
    accountId: text("account_id").notNull(),
    actorUserId: text("actor_user_id"),
    credentialType: text("credential_type", { enum: AUDIT_CREDENTIAL_TYPES }).notNull(),
    credentialId: text("credential_id"),
    channel: text("channel", { enum: AUDIT_CHANNELS }).notNull(),
    action: text("action").notNull(),
    resourceType: text("resource_type"),
    resourceId: text("resource_id"),
    clientAddress: text("client_address"),
    /** JSON object of scalars (AuditEntry.detail), or null. */
    detail: text("detail"),
  },
  (t) => [index("audit_entries_account_at").on(t.accountId, t.at, t.id), index("audit_entries_at").on(t.at)],
);

/**
 * One row (id 1) that only the trail's retention purge writes, inside its transaction: rows older
 * than `cutoff` (ms) may be deleted while it is set; the purge sets it back to 0 before it commits,
 * so no other statement, then or later, can delete an entry.
 */
export const auditPurgeCutoff = sqliteTable("audit_purge_cutoff", {
  /** Always 1: the table holds one row. */
  id: integer("id").primaryKey().default(1),
  cutoff: integer("cutoff").notNull(),
});
