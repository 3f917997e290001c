-- Hand-written (issue 23): the audit trail is append-only, as migrations/0019_audit_append_only.sql on
-- SQLite. No UPDATE, ever; a DELETE only of an entry older than the cutoff that the trail's retention
-- purge (src/audit/store.ts purgeAuditEntries) sets in audit_purge_cutoff inside its own transaction
-- and sets back to 0 before committing (other transactions never see it: READ COMMITTED).
CREATE FUNCTION verbatim_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		IF OLD."at" < COALESCE((SELECT "cutoff" FROM "audit_purge_cutoff" WHERE "id" = 1), 0) THEN
			RETURN OLD;
		END IF;
	END IF;
	RAISE EXCEPTION 'audit entries are append-only';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "audit_entries_no_update" BEFORE UPDATE ON "audit_entries" FOR EACH ROW EXECUTE FUNCTION verbatim_audit_append_only();--> statement-breakpoint
CREATE TRIGGER "audit_entries_no_delete" BEFORE DELETE ON "audit_entries" FOR EACH ROW EXECUTE FUNCTION verbatim_audit_append_only();--> statement-breakpoint
-- TRUNCATE fires no row trigger: refuse it by statement.
CREATE TRIGGER "audit_entries_no_truncate" BEFORE TRUNCATE ON "audit_entries" FOR EACH STATEMENT EXECUTE FUNCTION verbatim_audit_append_only();
