ALTER TABLE `actors` ADD `revision` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `actors` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `actors` ADD `exclusive_key` text;--> statement-breakpoint
CREATE INDEX `actors_seq_idx` ON `actors` (`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `actors_exclusive_key_idx` ON `actors` (`exclusive_key`);