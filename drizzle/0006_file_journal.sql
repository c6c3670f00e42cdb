CREATE TABLE `file_blobs` (
	`hash` text PRIMARY KEY NOT NULL,
	`bytes` blob NOT NULL,
	`size` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `file_journal` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`message_id` text,
	`turn_id` text,
	`tool` text NOT NULL,
	`path` text NOT NULL,
	`before_hash` text,
	`after_hash` text,
	`at` integer NOT NULL,
	`undone_by` integer
);
--> statement-breakpoint
CREATE INDEX `file_journal_path_idx` ON `file_journal` (`path`,`id`);--> statement-breakpoint
CREATE INDEX `file_journal_session_idx` ON `file_journal` (`session_id`,`at`);