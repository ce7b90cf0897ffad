ALTER TABLE "configurations" ADD COLUMN "content" text;--> statement-breakpoint
ALTER TABLE "configurations" ADD COLUMN "pre_run_script" text;