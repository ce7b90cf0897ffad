CREATE TABLE "host_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"host_name" text NOT NULL,
	"label" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"revoked_at" bigint,
	CONSTRAINT "host_credentials_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "hosts" (
	"name" text PRIMARY KEY NOT NULL,
	"first_seen_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"online_until" bigint NOT NULL,
	"agent_version" text,
	"protocol" bigint
);
--> statement-breakpoint
CREATE INDEX "host_credentials_host" ON "host_credentials" USING btree ("host_name");