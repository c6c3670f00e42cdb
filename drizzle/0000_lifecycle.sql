CREATE TABLE `actors` (
	`machine_id` text NOT NULL,
	`instance_id` text NOT NULL,
	`machine_version` text NOT NULL,
	`session_id` text,
	`state` text NOT NULL,
	`terminal` integer NOT NULL,
	`snapshot` text NOT NULL,
	`document` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`machine_id`, `instance_id`)
);
--> statement-breakpoint
CREATE INDEX `actors_session_id_idx` ON `actors` (`session_id`);--> statement-breakpoint
CREATE TABLE `transitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`machine_id` text NOT NULL,
	`instance_id` text NOT NULL,
	`session_id` text,
	`from_state` text NOT NULL,
	`event` text NOT NULL,
	`to_state` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transitions_instance_idx` ON `transitions` (`machine_id`,`instance_id`);--> statement-breakpoint
CREATE INDEX `transitions_session_id_idx` ON `transitions` (`session_id`);