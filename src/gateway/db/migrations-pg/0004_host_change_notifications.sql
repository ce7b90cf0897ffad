-- Host credentials are looked up through the same caches as the other bearer families: a revocation is
-- announced like theirs (0002). The hosts table is not: fronts refresh its presence every few seconds.
CREATE TRIGGER agent_gateway_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON host_credentials FOR EACH STATEMENT EXECUTE FUNCTION agent_gateway_notify_change();
