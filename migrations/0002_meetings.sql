CREATE TABLE `meeting_tags` (
	`meeting_id` text NOT NULL,
	`tag` text NOT NULL,
	PRIMARY KEY(`meeting_id`, `tag`),
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `meeting_tags_tag` ON `meeting_tags` (`tag`);--> statement-breakpoint
CREATE TABLE `participants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`meeting_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`speaker_labels` text DEFAULT '[]' NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `participants_meeting` ON `participants` (`meeting_id`);--> statement-breakpoint
CREATE TABLE `summaries` (
	`meeting_id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`language` text,
	`markdown` text NOT NULL,
	`structured` text,
	`model` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `transcripts` (
	`meeting_id` text PRIMARY KEY NOT NULL,
	`language` text,
	`duration_seconds` integer,
	`model` text,
	`speakers` text NOT NULL,
	`segments` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`type` text NOT NULL,
	`api_version` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_user_created` ON `events` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`user_id` text NOT NULL,
	`operation` text NOT NULL,
	`key` text NOT NULL,
	`status` text NOT NULL,
	`request_hash` text,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `operation`, `key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `meetings` ADD `title_source` text DEFAULT 'user' NOT NULL;--> statement-breakpoint
ALTER TABLE `meetings` ADD `recorded_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `meetings` ADD `transcribe_only` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `meetings` ADD `duration_seconds` integer;--> statement-breakpoint
ALTER TABLE `meetings` ADD `requested_language` text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE `meetings` ADD `language` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `source` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `recording_type` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `client_id` integer;--> statement-breakpoint
ALTER TABLE `meetings` ADD `metadata` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `file_name` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `audio_url` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `document_templates` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `persona` text;--> statement-breakpoint
ALTER TABLE `meetings` ADD `min_speakers` integer;--> statement-breakpoint
ALTER TABLE `meetings` ADD `max_speakers` integer;--> statement-breakpoint
CREATE INDEX `meetings_user_recorded` ON `meetings` (`user_id`,`recorded_at`);--> statement-breakpoint
ALTER TABLE `jobs` ADD `next_step` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `step_attempts` integer DEFAULT 0 NOT NULL;