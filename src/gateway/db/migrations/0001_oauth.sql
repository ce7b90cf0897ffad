ALTER TABLE `oauth_clients` ADD `token_endpoint_auth_method` text;--> statement-breakpoint
CREATE INDEX `oauth_access_tokens_client` ON `oauth_access_tokens` (`client_id`);--> statement-breakpoint
CREATE INDEX `oauth_device_codes_expires` ON `oauth_device_codes` (`expires_at`);