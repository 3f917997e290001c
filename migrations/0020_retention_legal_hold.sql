CREATE TABLE `retention_policies` (
	`user_id` text PRIMARY KEY NOT NULL,
	`delete_after_days` integer,
	`recording_delete_after_days` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `clients` ADD `legal_hold` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `meetings` ADD `legal_hold` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `meetings` ADD `recording_deleted_at` integer;