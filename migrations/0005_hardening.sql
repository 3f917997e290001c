CREATE TABLE `external_identities` (
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`issuer`, `subject`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `external_identities_user` ON `external_identities` (`user_id`);--> statement-breakpoint
CREATE TABLE `revoked_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `revoked_tokens_expires` ON `revoked_tokens` (`expires_at`);--> statement-breakpoint
ALTER TABLE `jobs` ADD `lease_owner` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `lease_expires_at` integer;--> statement-breakpoint
CREATE INDEX `jobs_status_created` ON `jobs` (`status`,`created_at`);--> statement-breakpoint
ALTER TABLE `events` ADD `meeting_id` text;--> statement-breakpoint
CREATE INDEX `events_meeting` ON `events` (`meeting_id`);--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `resource_id` text;--> statement-breakpoint
CREATE INDEX `idempotency_keys_resource` ON `idempotency_keys` (`resource_id`);--> statement-breakpoint
CREATE INDEX `idempotency_keys_created` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
-- Deleting a meeting removes its terms from the full-text index at once, not at the next merge.
INSERT INTO `meetings_fts`(`meetings_fts`, `rank`) VALUES('secure-delete', 1);--> statement-breakpoint
-- Terms of meetings deleted before this release are merged away now.
INSERT INTO `meetings_fts`(`meetings_fts`) VALUES('optimize');
