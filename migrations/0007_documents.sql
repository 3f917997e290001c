CREATE TABLE `document_requests` (
	`job_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`meeting_id` text NOT NULL,
	`template_id` text,
	`task` text NOT NULL,
	`title` text,
	`instructions` text,
	`include_transcript` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `document_requests_meeting` ON `document_requests` (`meeting_id`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`meeting_id` text NOT NULL,
	`job_id` text NOT NULL,
	`title` text NOT NULL,
	`template_id` text,
	`language` text,
	`model` text,
	`markdown` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `documents_user_created` ON `documents` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_meeting` ON `documents` (`meeting_id`);