-- Replicas keep caches of token and principal lookups; every statement that writes a table those caches
-- read announces itself on the channel `agent_gateway_changes` (payload: the table's name), so each
-- replica's listener clears them (src/gateway/db/pg-changes.ts). A fleet event added by any replica is
-- announced on `agent_gateway_fleet` (payload: empty), so every replica's event streams read it.
CREATE FUNCTION agent_gateway_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('agent_gateway_changes', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION agent_gateway_notify_fleet() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('agent_gateway_fleet', '');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['principals', 'password_credentials', 'pam_bindings', 'personal_access_tokens', 'web_sessions',
    'oauth_clients', 'oauth_grants', 'oauth_access_tokens', 'oauth_refresh_tokens', 'oauth_device_codes', 'configurations',
    'projects', 'sessions', 'service_credentials', 'rate_limit_state', 'gateway_settings'] LOOP
    EXECUTE format('CREATE TRIGGER agent_gateway_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION agent_gateway_notify_change()', t);
  END LOOP;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER agent_gateway_fleet AFTER INSERT ON fleet_events FOR EACH STATEMENT EXECUTE FUNCTION agent_gateway_notify_fleet();
