CREATE TABLE `host_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`host_name` text NOT NULL,
	`label` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `host_credentials_token_hash_unique` ON `host_credentials` (`token_hash`);--> statement-breakpoint
CREATE INDEX `host_credentials_host` ON `host_credentials` (`host_name`);--> statement-breakpoint
CREATE TABLE `hosts` (
	`name` text PRIMARY KEY NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`online_until` integer NOT NULL,
	`agent_version` text,
	`protocol` integer
);
