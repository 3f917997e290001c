import { sqliteTable, text, integer } from "drizzle-orm/sqlite-core";
import { users } from "../auth/table.ts";

/**
 * An account's retention policy (issue 23): whole meetings deleted `delete_after_days` after they
 * were recorded, and/or only their recording deleted after `recording_delete_after_days`. Null is
 * off; no row is no policy. Legal holds (meetings.legal_hold, clients.legal_hold) suspend both.
 */
export const retentionPolicies = sqliteTable("retention_policies", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  deleteAfterDays: integer("delete_after_days"),
  recordingDeleteAfterDays: integer("recording_delete_after_days"),
  updatedAt: integer("updated_at").notNull(),
});
