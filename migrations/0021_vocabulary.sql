CREATE TABLE `vocabulary_terms` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`term` text NOT NULL,
	`variants` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vocabulary_terms_user_term_unique` ON `vocabulary_terms` (`user_id`,"term" COLLATE NOCASE);--> statement-breakpoint
ALTER TABLE `meetings` ADD `vocabulary` text;