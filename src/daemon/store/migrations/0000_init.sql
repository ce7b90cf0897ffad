CREATE TABLE `attachments` (
	`id` text PRIMARY KEY NOT NULL,
	`media_type` text NOT NULL,
	`data` blob NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `operations` (
	`window_id` text NOT NULL,
	`operation` text NOT NULL,
	`route` text NOT NULL,
	`digest` text NOT NULL,
	`status` text NOT NULL,
	`http_status` integer NOT NULL,
	`result` text NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`window_id`, `operation`)
);
--> statement-breakpoint
CREATE INDEX `operations_expiry` ON `operations` (`expires_at`);--> statement-breakpoint
CREATE TABLE `records` (
	`seq` integer PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `records_type` ON `records` (`type`);--> statement-breakpoint
CREATE TABLE `session_meta` (
	`id` text PRIMARY KEY NOT NULL,
	`project` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`title` text,
	`state` text DEFAULT 'running' NOT NULL,
	`finalized` integer DEFAULT false NOT NULL,
	`source_revision` integer DEFAULT 0 NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`token_key` text NOT NULL
);
