-- What the SQLite migrations do with FTS5 and triggers, in PostgreSQL's terms (issue 22).

-- Full-text index over each meeting's title, AI report and transcript (GET /v1/meetings?q=):
-- one tsvector per meeting, written by meetings/search-index-store.ts. 'simple' folds case and
-- unaccent folds diacritics, as FTS5's unicode61 remove_diacritics does on SQLite. unaccent is a
-- trusted extension (PostgreSQL 13+): the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
CREATE TABLE "meetings_fts" (
	"meeting_id" text PRIMARY KEY NOT NULL,
	"document" tsvector NOT NULL
);--> statement-breakpoint
CREATE INDEX "meetings_fts_document" ON "meetings_fts" USING gin ("document");--> statement-breakpoint

-- Ledger lines are immutable (SPEC 2): any UPDATE or DELETE is refused.
CREATE FUNCTION verbatim_ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'ledger lines are immutable';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "ledger_lines_no_update" BEFORE UPDATE ON "ledger_lines" FOR EACH ROW EXECUTE FUNCTION verbatim_ledger_immutable();--> statement-breakpoint
CREATE TRIGGER "ledger_lines_no_delete" BEFORE DELETE ON "ledger_lines" FOR EACH ROW EXECUTE FUNCTION verbatim_ledger_immutable();--> statement-breakpoint
-- TRUNCATE fires no row trigger: refuse it by statement.
CREATE TRIGGER "ledger_lines_no_truncate" BEFORE TRUNCATE ON "ledger_lines" FOR EACH STATEMENT EXECUTE FUNCTION verbatim_ledger_immutable();--> statement-breakpoint

-- A reservation lasts exactly as long as its job runs: it goes in the transaction that ends the job
-- (completed, failed, canceled), whichever code path ends it; with the job row itself by the foreign key's cascade.
CREATE FUNCTION verbatim_release_reservation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM "usage_reservations" WHERE "job_id" = NEW."id";
	RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "usage_reservations_release_on_end" AFTER UPDATE OF "status" ON "jobs" FOR EACH ROW WHEN (NEW."status" NOT IN ('queued', 'processing')) EXECUTE FUNCTION verbatim_release_reservation();--> statement-breakpoint

-- A deleted account whose ledger lines keep its row (admin user delete) gets no new rows: a request
-- that authenticated just before the deletion and writes after it fails instead of leaving content.
CREATE FUNCTION verbatim_refuse_deleted_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF (SELECT "deleted_at" FROM "users" WHERE "id" = NEW."user_id") IS NOT NULL THEN
		RAISE EXCEPTION 'the account was deleted';
	END IF;
	RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "meetings_refused_for_deleted_accounts" BEFORE INSERT ON "meetings" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "jobs_refused_for_deleted_accounts" BEFORE INSERT ON "jobs" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "api_keys_refused_for_deleted_accounts" BEFORE INSERT ON "api_keys" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "web_sessions_refused_for_deleted_accounts" BEFORE INSERT ON "web_sessions" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "external_identities_refused_for_deleted_accounts" BEFORE INSERT ON "external_identities" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "webhook_endpoints_refused_for_deleted_accounts" BEFORE INSERT ON "webhook_endpoints" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_refused_for_deleted_accounts" BEFORE INSERT ON "webhook_deliveries" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "clients_refused_for_deleted_accounts" BEFORE INSERT ON "clients" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "feedback_refused_for_deleted_accounts" BEFORE INSERT ON "feedback" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "documents_refused_for_deleted_accounts" BEFORE INSERT ON "documents" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "document_requests_refused_for_deleted_accounts" BEFORE INSERT ON "document_requests" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "idempotency_keys_refused_for_deleted_accounts" BEFORE INSERT ON "idempotency_keys" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "events_refused_for_deleted_accounts" BEFORE INSERT ON "events" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "credit_grants_refused_for_deleted_accounts" BEFORE INSERT ON "credit_grants" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "spend_caps_refused_for_deleted_accounts" BEFORE INSERT ON "spend_caps" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "usage_alerts_refused_for_deleted_accounts" BEFORE INSERT ON "usage_alerts" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();--> statement-breakpoint
CREATE TRIGGER "usage_reservations_refused_for_deleted_accounts" BEFORE INSERT ON "usage_reservations" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();
