ALTER TABLE `file_journal` ADD `before_mode` integer;--> statement-breakpoint
ALTER TABLE `file_journal` ADD `after_mode` integer;--> statement-breakpoint
ALTER TABLE `file_journal` ADD `observed` integer DEFAULT false NOT NULL;