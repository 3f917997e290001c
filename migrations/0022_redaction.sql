CREATE TABLE `redaction_defaults` (
	`user_id` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`entities` text NOT NULL,
	`audio` integer DEFAULT false NOT NULL,
	`case_number_pattern` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `meetings` ADD `redaction` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `redaction_applied` text;