ALTER TABLE `file_blobs` ADD `encoding` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `file_blobs` ADD `base` text;--> statement-breakpoint
ALTER TABLE `file_blobs` ADD `depth` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `file_journal` ADD `before_mode` integer;--> statement-breakpoint
ALTER TABLE `file_journal` ADD `after_mode` integer;--> statement-breakpoint
ALTER TABLE `file_journal` ADD `observed` integer DEFAULT false NOT NULL;