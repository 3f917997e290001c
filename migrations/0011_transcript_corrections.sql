CREATE TABLE `transcript_corrections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`meeting_id` text NOT NULL,
	`segment_index` integer NOT NULL,
	`previous_text` text NOT NULL,
	`text` text NOT NULL,
	`author_user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `transcript_corrections_meeting` ON `transcript_corrections` (`meeting_id`,`segment_index`,`id`);--> statement-breakpoint
ALTER TABLE `jobs` ADD `report_only` integer;