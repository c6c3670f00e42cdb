CREATE TABLE `file_reverts` (
	`reverter_id` integer NOT NULL,
	`reverted_id` integer NOT NULL,
	PRIMARY KEY(`reverter_id`, `reverted_id`)
);
--> statement-breakpoint
CREATE INDEX `file_reverts_reverted_idx` ON `file_reverts` (`reverted_id`);--> statement-breakpoint
INSERT INTO `file_reverts` (`reverter_id`, `reverted_id`) SELECT `undone_by`, `id` FROM `file_journal` WHERE `undone_by` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `file_journal` DROP COLUMN `undone_by`;