CREATE TABLE `usage_reservations` (
	`job_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`channel` text NOT NULL,
	`amount_minor` integer DEFAULT 0 NOT NULL,
	`audio_seconds` integer DEFAULT 0 NOT NULL,
	`documents` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `usage_reservations_user` ON `usage_reservations` (`user_id`,`channel`);--> statement-breakpoint
-- A reservation lasts exactly as long as its job runs: it goes in the transaction that ends the job
-- (completed, failed, canceled), whichever code path ends it, and with the job row itself.
CREATE TRIGGER `usage_reservations_release_on_end` AFTER UPDATE OF `status` ON `jobs` WHEN NEW.`status` NOT IN ('queued', 'processing') BEGIN DELETE FROM `usage_reservations` WHERE `job_id` = NEW.`id`; END;--> statement-breakpoint
CREATE TRIGGER `usage_reservations_release_on_delete` AFTER DELETE ON `jobs` BEGIN DELETE FROM `usage_reservations` WHERE `job_id` = OLD.`id`; END;
