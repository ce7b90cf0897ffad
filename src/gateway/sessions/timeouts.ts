// The `daemon_sessions` bounds of the gateway config in milliseconds, read at each use (a config change
// of the context takes effect on the next launch, stop or health check).
import type { GatewayConfig } from "../config/types.ts";

export interface SessionTimeouts {
  stop: number;
  health: number;
  discover: number;
}

/** Bound of an on-demand health check (GET, re-adoption at gateway start): the spec's 30 s health timeout is for startup. */
const ON_DEMAND_HEALTH_MAX_MS = 5000;

export function sessionTimeouts(config: Pick<GatewayConfig, "daemon_sessions">): SessionTimeouts {
  const d = config.daemon_sessions;
  return { stop: d.stop_timeout_secs * 1000, health: d.health_check_timeout_secs * 1000, discover: d.spawn_discover_timeout_secs * 1000 };
}

/** How long an on-demand health probe may take. */
export function onDemandHealthMs(config: Pick<GatewayConfig, "daemon_sessions">): number {
  return Math.min(sessionTimeouts(config).health, ON_DEMAND_HEALTH_MAX_MS);
}
