-- Hand-written (issue 23): the audit trail is append-only. No UPDATE, ever; a DELETE only of an entry
-- older than the cutoff that the trail's retention purge (src/audit/store.ts purgeAuditEntries) sets in
-- audit_purge_cutoff inside its own transaction and sets back to 0 before committing.
CREATE TRIGGER `audit_entries_no_update` BEFORE UPDATE ON `audit_entries` BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END;--> statement-breakpoint
CREATE TRIGGER `audit_entries_no_delete` BEFORE DELETE ON `audit_entries` WHEN OLD.`at` >= COALESCE((SELECT `cutoff` FROM `audit_purge_cutoff` WHERE `id` = 1), 0) BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END;
