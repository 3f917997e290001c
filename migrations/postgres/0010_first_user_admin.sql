-- Hand-written. The administrator role (issue 23): the data dir's first user, the oldest one not
-- deleted (on a database started before this version, the first-run admin@localhost), becomes an
-- admin, so the console has someone who may open it.
UPDATE "users" SET "role" = 'admin' WHERE "id" = (SELECT "id" FROM "users" WHERE "deleted_at" IS NULL ORDER BY "created_at", "id" LIMIT 1);--> statement-breakpoint
-- A deleted account gets no sign-in link, as it gets no session or key (migration 0001_rules).
CREATE TRIGGER "sign_in_links_refused_for_deleted_accounts" BEFORE INSERT ON "sign_in_links" FOR EACH ROW EXECUTE FUNCTION verbatim_refuse_deleted_account();
