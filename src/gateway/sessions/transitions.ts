// The session state machine of gateway.md (States and transitions). Every state change goes through
// `assertTransition`, so a move the table does not allow is a programming error caught at once, never a
// silently inconsistent record.
export type SessionState = "starting" | "running" | "stopped" | "failed" | "cleanup_pending" | "reaped";
export type LaunchMode = "project_direct" | "worktree_backed";
export const LAUNCH_MODES: readonly LaunchMode[] = ["project_direct", "worktree_backed"];

/** What caused a transition; recorded in the history entry. */
export type TransitionTrigger =
  | "create"
  | "daemon_healthy"
  | "health_check_failed"
  | "daemon_exited"
  | "spawn_failed"
  | "stop"
  | "idle_exit"
  | "resume"
  | "delete"
  | "reconciliation";

/**
 * Allowed moves. The spec's table, read as follows (decisions-gateway-sessions.md 2): its last row ("failed
 * on a daemon crash or failed health check") applies to a starting or running daemon too; delete passes
 * through cleanup_pending and reaped before the record goes.
 */
const ALLOWED: Record<SessionState, readonly SessionState[]> = {
  starting: ["running", "failed", "cleanup_pending"],
  running: ["failed", "stopped", "cleanup_pending"],
  stopped: ["running", "cleanup_pending"],
  failed: ["running", "failed", "cleanup_pending"],
  cleanup_pending: ["reaped"],
  reaped: [],
};

export function canTransition(from: SessionState, to: SessionState): boolean {
  return ALLOWED[from].includes(to);
}

export function assertTransition(from: SessionState, to: SessionState): void {
  if (!canTransition(from, to)) throw new Error(`session state ${from} -> ${to} is not an allowed transition`);
}
