CREATE TABLE `watchdog_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`kind` text NOT NULL,
	`call_id` text,
	`session_id` text,
	`command` text,
	`pids` text NOT NULL,
	`message` text NOT NULL
);
