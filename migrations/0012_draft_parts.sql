CREATE TABLE `draft_parts` (
	`meeting_id` text NOT NULL,
	`part_index` integer NOT NULL,
	`bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`meeting_id`, `part_index`),
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade
);
