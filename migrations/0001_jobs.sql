CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`stage` text,
	`progress` real,
	`source` text NOT NULL,
	`meeting_id` text,
	`document_id` text,
	`parent_job_id` text,
	`transcribe_only` integer,
	`document_templates` text,
	`document_job_ids` text,
	`error_code` text,
	`error_message` text,
	`usage` text,
	`metadata` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `jobs_user_created` ON `jobs` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_meeting` ON `jobs` (`meeting_id`);