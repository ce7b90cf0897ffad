ALTER TABLE `configurations` ADD `content` text;--> statement-breakpoint
ALTER TABLE `configurations` ADD `pre_run_script` text;