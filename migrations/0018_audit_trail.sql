CREATE TABLE `audit_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`account_id` text NOT NULL,
	`actor_user_id` text,
	`credential_type` text NOT NULL,
	`credential_id` text,
	`channel` text NOT NULL,
	`action` text NOT NULL,
	`resource_type` text,
	`resource_id` text,
	`client_address` text,
	`detail` text
);
--> statement-breakpoint
CREATE INDEX `audit_entries_account_at` ON `audit_entries` (`account_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_entries_at` ON `audit_entries` (`at`);--> statement-breakpoint
CREATE TABLE `audit_purge_cutoff` (
	`id` integer PRIMARY KEY DEFAULT 1 NOT NULL,
	`cutoff` integer NOT NULL
);
