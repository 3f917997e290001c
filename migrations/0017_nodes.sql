CREATE TABLE `nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`role` text NOT NULL,
	`hostname` text NOT NULL,
	`pid` integer NOT NULL,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`stopped_at` integer
);
--> statement-breakpoint
CREATE INDEX `nodes_heartbeat` ON `nodes` (`heartbeat_at`);