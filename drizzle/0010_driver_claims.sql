CREATE TABLE `driver_claims` (
	`machine_id` text NOT NULL,
	`instance_id` text NOT NULL,
	`holder` text NOT NULL,
	`until` integer NOT NULL,
	PRIMARY KEY(`machine_id`, `instance_id`)
);
