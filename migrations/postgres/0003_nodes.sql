CREATE TABLE "nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"role" text NOT NULL,
	"hostname" text NOT NULL,
	"pid" bigint NOT NULL,
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL,
	"stopped_at" bigint
);
--> statement-breakpoint
CREATE INDEX "nodes_heartbeat" ON "nodes" USING btree ("heartbeat_at");