CREATE TABLE `fleet_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`body` text NOT NULL,
	`bytes` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fleet_events_at` ON `fleet_events` (`at`);--> statement-breakpoint
CREATE TABLE `gateway_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `projects` ADD `owner_host` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `owner_host` text;