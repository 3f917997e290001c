CREATE TABLE "redaction_defaults" (
	"user_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"entities" text NOT NULL,
	"audio" boolean DEFAULT false NOT NULL,
	"case_number_pattern" text,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "redaction" text;--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "redaction_applied" text;--> statement-breakpoint
ALTER TABLE "redaction_defaults" ADD CONSTRAINT "redaction_defaults_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;