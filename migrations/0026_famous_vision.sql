CREATE TABLE `meeting_shares` (
	`id` text PRIMARY KEY NOT NULL,
	`meeting_id` text NOT NULL,
	`user_id` text NOT NULL,
	`recipient_user_id` text NOT NULL,
	`permission` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recipient_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `meeting_shares_meeting_recipient` ON `meeting_shares` (`meeting_id`,`recipient_user_id`);--> statement-breakpoint
CREATE INDEX `meeting_shares_recipient` ON `meeting_shares` (`recipient_user_id`,`created_at`);