CREATE TABLE `review_audits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`loop_name` text NOT NULL,
	`section` integer NOT NULL,
	`pass` integer NOT NULL,
	`session_id` text NOT NULL,
	`outcome` text NOT NULL,
	`coder_handoff` text,
	`findings_before` text NOT NULL,
	`findings_after` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `review_audits_loop_idx` ON `review_audits` (`loop_name`,`id`);--> statement-breakpoint
CREATE TABLE `review_findings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`loop_name` text NOT NULL,
	`section` integer NOT NULL,
	`file` text NOT NULL,
	`line` integer NOT NULL,
	`severity` text NOT NULL,
	`description` text NOT NULL,
	`scenario` text,
	`session_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `review_findings_place_idx` ON `review_findings` (`loop_name`,`section`,`file`,`line`);