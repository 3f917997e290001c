-- Issue 21: jobs/ knows no job kind. The kinds' own columns move into one JSON payload the kind
-- declares and validates (jobs/kind.ts), copied row by row (nulls left out), and `source` is
-- now called `channel`. Written by hand: drizzle-kit would rebuild the table, which drops the
-- usage_reservations and account-deletion triggers on it.
ALTER TABLE `jobs` RENAME COLUMN `source` TO `channel`;--> statement-breakpoint
ALTER TABLE `jobs` ADD `payload` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
UPDATE `jobs` SET `payload` = CASE `kind`
  WHEN 'meeting_processing' THEN json_patch('{}', json_object(
    'transcribeOnly', json(CASE WHEN `transcribe_only` IS NULL THEN NULL WHEN `transcribe_only` THEN 'true' ELSE 'false' END),
    'reportOnly', json(CASE WHEN `report_only` IS NULL THEN NULL WHEN `report_only` THEN 'true' ELSE 'false' END),
    'documentTemplates', json(`document_templates`),
    'documentJobIds', json(`document_job_ids`)))
  WHEN 'document_generation' THEN json_patch('{}', json_object('documentId', `document_id`))
  ELSE '{}' END;--> statement-breakpoint
ALTER TABLE `jobs` DROP COLUMN `document_id`;--> statement-breakpoint
ALTER TABLE `jobs` DROP COLUMN `transcribe_only`;--> statement-breakpoint
ALTER TABLE `jobs` DROP COLUMN `report_only`;--> statement-breakpoint
ALTER TABLE `jobs` DROP COLUMN `document_templates`;--> statement-breakpoint
ALTER TABLE `jobs` DROP COLUMN `document_job_ids`;
