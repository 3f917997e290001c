CREATE TABLE `credit_grants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`period` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`note` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `credit_grants_user_period` ON `credit_grants` (`user_id`,`period`);--> statement-breakpoint
CREATE TABLE `ledger_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`period` text NOT NULL,
	`channel` text NOT NULL,
	`operation` text NOT NULL,
	`meeting_id` text,
	`job_id` text,
	`audio_seconds` integer DEFAULT 0 NOT NULL,
	`prompt_tokens` integer DEFAULT 0 NOT NULL,
	`completion_tokens` integer DEFAULT 0 NOT NULL,
	`model` text,
	`unit_rate` integer NOT NULL,
	`currency` text NOT NULL,
	`cost` integer NOT NULL,
	`paid_wallet` integer NOT NULL,
	`paid_on_demand` integer NOT NULL,
	`written_off` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ledger_user_period` ON `ledger_lines` (`user_id`,`period`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `spend_caps` (
	`user_id` text PRIMARY KEY NOT NULL,
	`cap_minor` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `usage_alerts` (
	`user_id` text NOT NULL,
	`period` text NOT NULL,
	`alert` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `period`, `alert`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Ledger lines are immutable (SPEC 2): no UPDATE or DELETE, by anyone, also when a meeting is deleted.
CREATE TRIGGER `ledger_lines_no_update` BEFORE UPDATE ON `ledger_lines` BEGIN SELECT RAISE(ABORT, 'ledger lines are immutable'); END;--> statement-breakpoint
CREATE TRIGGER `ledger_lines_no_delete` BEFORE DELETE ON `ledger_lines` BEGIN SELECT RAISE(ABORT, 'ledger lines are immutable'); END;
