ALTER TABLE `sessions` ADD `pid_start_ticks` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `worktree_branch` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `bootstrap_file` text;