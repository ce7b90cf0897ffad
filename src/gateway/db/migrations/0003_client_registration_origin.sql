ALTER TABLE `oauth_clients` ADD `registered_via` text;--> statement-breakpoint
-- Clients registered before this migration (decision 47 of docs/decisions-gateway.md). Where each came from is
-- in the audit log: dynamic registration records the registering principal, the admin CLI records none.
UPDATE `oauth_clients` SET `registered_via` = 'http'
WHERE `id` IN (SELECT `target` FROM `audit_events` WHERE `action` = 'client.register' AND `detail` LIKE 'dynamic registration%')
   OR (`client_type` = 'confidential' AND `id` IN (SELECT `client_id` FROM `oauth_grants`));--> statement-breakpoint
UPDATE `oauth_clients` SET `registered_via` = 'admin_cli'
WHERE `registered_via` IS NULL
  AND `id` IN (SELECT `target` FROM `audit_events` WHERE `action` = 'client.register' AND `principal_id` IS NULL AND `detail` LIKE 'via CLI%');--> statement-breakpoint
-- A confidential client registered over HTTP before registration grants existed gets the grant of the account
-- whose token registered it, revoked already if that account changed its password since (spec rule 10).
INSERT INTO `oauth_grants` (`id`, `client_id`, `principal_id`, `scopes`, `created_at`, `revoked_at`)
SELECT 'grt_' || lower(hex(randomblob(13))), c.`id`, a.`principal_id`, c.`scopes`, c.`created_at`,
  (SELECT min(p.`at`) FROM `audit_events` p
   WHERE p.`action` = 'password.change' AND p.`outcome` = 'success' AND p.`principal_id` = a.`principal_id` AND p.`at` >= c.`created_at`)
FROM `oauth_clients` c
JOIN `audit_events` a ON a.`action` = 'client.register' AND a.`target` = c.`id` AND a.`principal_id` IS NOT NULL
JOIN `principals` r ON r.`id` = a.`principal_id`
WHERE c.`client_type` = 'confidential' AND NOT EXISTS (SELECT 1 FROM `oauth_grants` g WHERE g.`client_id` = c.`id`)
GROUP BY c.`id`;--> statement-breakpoint
-- Refused from now on: confidential clients without a live registration grant, unless the admin CLI
-- registered them (those never had one). What they registered in turn goes with them, as revocation does.
WITH RECURSIVE `refused`(`principal_id`) AS (
  SELECT c.`principal_id` FROM `oauth_clients` c
  WHERE c.`client_type` = 'confidential' AND c.`principal_id` IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM `oauth_grants` g WHERE g.`client_id` = c.`id` AND g.`revoked_at` IS NULL)
    AND (c.`registered_via` IS NOT 'admin_cli' OR EXISTS (SELECT 1 FROM `oauth_grants` g WHERE g.`client_id` = c.`id`))
  UNION
  SELECT c.`principal_id` FROM `refused` d
  JOIN `oauth_grants` g ON g.`principal_id` = d.`principal_id`
  JOIN `oauth_clients` c ON c.`id` = g.`client_id`
  WHERE c.`client_type` = 'confidential' AND c.`principal_id` IS NOT NULL
)
UPDATE `oauth_grants` SET `revoked_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE `revoked_at` IS NULL AND `principal_id` IN (SELECT `principal_id` FROM `refused`);--> statement-breakpoint
-- Their tokens stop now, not when they expire.
UPDATE `oauth_access_tokens` SET `revoked_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE `revoked_at` IS NULL AND (
  `grant_id` IN (SELECT `id` FROM `oauth_grants` WHERE `revoked_at` IS NOT NULL)
  OR `client_id` IN (
    SELECT c.`id` FROM `oauth_clients` c
    WHERE c.`client_type` = 'confidential'
      AND NOT EXISTS (SELECT 1 FROM `oauth_grants` g WHERE g.`client_id` = c.`id` AND g.`revoked_at` IS NULL)
      AND (c.`registered_via` IS NOT 'admin_cli' OR EXISTS (SELECT 1 FROM `oauth_grants` g WHERE g.`client_id` = c.`id`))));--> statement-breakpoint
UPDATE `oauth_refresh_tokens` SET `revoked_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE `revoked_at` IS NULL AND `grant_id` IN (SELECT `id` FROM `oauth_grants` WHERE `revoked_at` IS NOT NULL);
