CREATE TABLE `ledger_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ledger` text NOT NULL,
	`kind` text NOT NULL,
	`session_id` text,
	`subject` text,
	`at` integer NOT NULL,
	`entry` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ledger_entries_ledger_idx` ON `ledger_entries` (`ledger`,`id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_session_idx` ON `ledger_entries` (`ledger`,`session_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_subject_idx` ON `ledger_entries` (`ledger`,`subject`);--> statement-breakpoint
/* Nobody's history is lost: the watchdog ledger's rows move over in their order. A pids value that is not JSON moves as text, so the ledger reports that one row on read. */
INSERT INTO `ledger_entries` (`ledger`, `kind`, `session_id`, `subject`, `at`, `entry`)
SELECT 'watchdog', `kind`, `session_id`, `call_id`, `at`, json_object('at', `at`, 'kind', `kind`, 'callId', `call_id`, 'sessionId', `session_id`, 'command', `command`, 'pids', CASE WHEN json_valid(`pids`) THEN json(`pids`) ELSE `pids` END, 'message', `message`)
FROM `watchdog_ledger` ORDER BY `id`;
--> statement-breakpoint
/* The job ledgers each host kept as an @xstate/store item in key_value move over in time order; an entry that is no JSON object cannot move. */
INSERT INTO `ledger_entries` (`ledger`, `kind`, `session_id`, `subject`, `at`, `entry`)
SELECT 'job', coalesce(json_extract(`item`.`value`, '$.kind'), ''), json_extract(`item`.`value`, '$.sessionId'), json_extract(`item`.`value`, '$.jobId'), coalesce(json_extract(`item`.`value`, '$.at'), 0), `item`.`value`
FROM `key_value`, json_each(`key_value`.`value`, '$.context.entries') AS `item`
WHERE substr(`key_value`.`name`, 1, 17) = 'forge.job-ledger@' AND json_valid(`key_value`.`value`) AND `item`.`type` = 'object'
ORDER BY json_extract(`item`.`value`, '$.at'), `key_value`.`name`, `item`.`key`;
--> statement-breakpoint
/* The moved items go; an item that is not JSON never could be read and stays as it was. */
DELETE FROM `key_value` WHERE substr(`name`, 1, 17) = 'forge.job-ledger@' AND json_valid(`value`);
