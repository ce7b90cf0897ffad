// An idle daemon ends itself: after `daemon.idle_exit_secs` (default 15 minutes) with no client attached
// (no open event stream), no turn running, nothing queued, no open question and no request, it stops the
// session (final record `session_state` stopped with `reason: "idle"`) and exits. The session stays
// resumable: `agent continue`, the TUI and the gateway start a fresh daemon on the next attach.
// Decision: docs/decisions-daemon.md 25.
import type { Daemon } from "./daemon.ts";

/** The built-in idle time when the config says nothing (the schema's default). */
export const DEFAULT_IDLE_EXIT_SECS = 900;

export interface IdleExitOptions {
  /** Seconds; 0 turns idle exit off. */
  idleExitSecs: number;
  /** Stops listening and ends the process (the daemon process's own shutdown). */
  exit: () => void;
  log?: (message: string) => void;
  /** How often idleness is checked (default: a quarter of the idle time, between 0.25 s and 30 s). */
  checkMs?: number;
}

export interface IdleExit {
  stop(): void;
}

export function exitWhenIdle(daemon: Daemon, options: IdleExitOptions): IdleExit {
  const idleMs = options.idleExitSecs * 1000;
  if (!(idleMs > 0)) return { stop: () => {} };
  const checkMs = options.checkMs ?? Math.min(30_000, Math.max(250, Math.floor(idleMs / 4)));
  let done = false;
  const timer = setInterval(() => {
    if (done || !daemon.serving || daemon.idleFor() < idleMs) return;
    done = true;
    clearInterval(timer);
    options.log?.(`idle for ${options.idleExitSecs} s (no client, no turn, nothing queued): stopping the session; the next attach resumes it`);
    void daemon.stop("idle").finally(options.exit);
  }, checkMs);
  // Never the reason a stopping daemon stays up.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
