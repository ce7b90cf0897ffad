// Limits of subagents and the stall watchdog's timing (daemon.subagent_stall_threshold_secs and
// daemon.subagent_liveness_watchdog_interval_secs; zero is unset). The session reads them once, when the
// daemon starts it: changing them needs a restart, as the spec says.
import { resolveStreamHealth } from "../../providers/stream-health.ts";
import type { StreamSettings } from "../../providers/settings.ts";

/** Subagents running at once in one session; a `task` call beyond it is a tool error (docs/decisions-engine.md). */
export const MAX_CONCURRENT_SUBAGENTS = 4;
/** A subagent's report is cut to this many characters before it reaches the parent. */
export const MAX_REPORT_CHARS = 24_000;
/** The default stall threshold is this much above the provider's stream idle timeout. */
export const STALL_MARGIN_SECS = 60;
/** Built-in default of subagent_liveness_watchdog_interval_secs. */
export const DEFAULT_WATCHDOG_INTERVAL_SECS = 30;

export interface StallSettings {
  thresholdMs: number;
  intervalMs: number;
}

export interface SubagentDaemonSettings extends StreamSettings {
  subagent_stall_threshold_secs?: number | null;
  subagent_liveness_watchdog_interval_secs?: number | null;
}

/**
 * The threshold defaults to the effective provider idle timeout plus a margin, so the provider's own
 * stall detection gets the first chance; the watchdog catches what it cannot see (a stream kept alive by
 * pings that carries nothing). Explicit values are used as given.
 */
export function resolveStallSettings(daemon: SubagentDaemonSettings | null | undefined): StallSettings {
  const idleSecs = resolveStreamHealth(daemon).idleMs / 1000;
  const threshold = daemon?.subagent_stall_threshold_secs || idleSecs + STALL_MARGIN_SECS;
  const interval = daemon?.subagent_liveness_watchdog_interval_secs || DEFAULT_WATCHDOG_INTERVAL_SECS;
  return { thresholdMs: threshold * 1000, intervalMs: interval * 1000 };
}
