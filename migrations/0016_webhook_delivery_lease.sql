ALTER TABLE `webhook_deliveries` ADD `lease_owner` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `lease_expires_at` integer;