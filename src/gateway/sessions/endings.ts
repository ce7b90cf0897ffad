// How a daemon generation ends for its session. An exit the gateway did not ask for, or a failed health
// check, fails the session; a daemon that stopped its session itself (an idle exit, or a stop through the
// proxy) leaves it stopped; a stop on request stops it. Each ending forgets the live daemon, invalidates
// the generation's service credential and removes a bootstrap file still on disk.
import { rmSync } from "node:fs";
import type { GatewayContext } from "../context.ts";
import { openSession } from "../../daemon/store/index.ts";
import type { InvalidationCause } from "./credentials.ts";
import type { LiveDaemon, LiveDaemons } from "./live-daemons.ts";
import type { SessionRow } from "./registry.ts";
import type { SessionStore } from "./store.ts";
import { terminateDaemon } from "./terminate.ts";
import { sessionTimeouts } from "./timeouts.ts";
import type { SessionState, TransitionTrigger } from "./transitions.ts";

/** The supervisor's own parts its modules share: the session store (records and service credentials), the daemons it holds. */
export interface SessionParts {
  store: SessionStore;
  live: LiveDaemons;
}

/** What ending a generation uses (the config for the stop timeout). */
export type EndingDeps = SessionParts & Pick<GatewayContext, "config">;

/** The patch of a session that no longer has a daemon process. */
export const NO_PROCESS = { pid: null, pidStartTicks: null, port: null };

/** Removes the bootstrap file the session's row names (it holds the generation's service token). */
export async function removeBootstrap(store: SessionStore, id: string): Promise<void> {
  const row = await store.session(id);
  if (!row?.bootstrapFile) return;
  rmSync(row.bootstrapFile, { force: true });
  await store.update(id, { bootstrapFile: null });
}

/**
 * Moves a session to failed, invalidates its credential and ends whatever is left of its daemon. The
 * credential and bootstrap file go before the state changes: a client that sees `failed` may resume at
 * once, and the next generation's must not be caught by this cleanup.
 */
export async function failSession(deps: EndingDeps, id: string, from: readonly SessionState[], trigger: TransitionTrigger, detail: string, cause: InvalidationCause): Promise<void> {
  const daemon = deps.live.get(id);
  deps.live.forget(id);
  await deps.store.invalidateCredentials(id, cause);
  await removeBootstrap(deps.store, id);
  if (!await deps.store.transition(id, from, "failed", trigger, detail, NO_PROCESS)) return;
  // A hung daemon must not stay behind as an orphan: no graceful request (it did not answer one), and no
  // waiting for it either: the caller (a GET) answers with the failed record at once.
  if (daemon) void terminateDaemon(daemon, sessionTimeouts(deps.config).stop, false);
}

/** Stop on request (a running session): the daemon is ended, then the session is stopped. */
export async function stopSession(deps: EndingDeps, id: string): Promise<void> {
  const daemon = deps.live.get(id);
  deps.live.forget(id);
  if (daemon) await terminateDaemon(daemon, sessionTimeouts(deps.config).stop);
  await deps.store.transition(id, ["running"], "stopped", "stop", undefined, NO_PROCESS);
  await deps.store.invalidateCredentials(id, "session_stopped");
  await removeBootstrap(deps.store, id);
}

/** How the session's store says it ended, when its daemon stopped it itself: an idle exit or a stop. */
export function stoppedByItself(row: SessionRow): "idle" | "stop" | null {
  if (!row.sessionDir) return null;
  try {
    const store = openSession(row.sessionDir);
    try {
      if (store.meta().state !== "stopped") return null;
      return store.stoppedIdle() ? "idle" : "stop";
    } finally {
      store.close();
    }
  } catch {
    return null;
  }
}

/** A daemon that exited after stopping its session: the session is stopped (not failed). Returns whether it was. */
export async function settleStopped(deps: SessionParts, row: SessionRow): Promise<boolean> {
  const how = stoppedByItself(row);
  if (!how) return false;
  deps.live.forget(row.id);
  const detail = how === "idle" ? "the daemon was idle (daemon.idle_exit_secs) and stopped the session; the next proxied request resumes it" : "the daemon stopped the session (POST /session/stop) and exited";
  // Before the state changes, as in failSession: the first proxied request after an idle exit resumes at once.
  await deps.store.invalidateCredentials(row.id, "session_stopped");
  await removeBootstrap(deps.store, row.id);
  await deps.store.transition(row.id, ["running", "starting"], "stopped", how === "idle" ? "idle_exit" : "stop", detail, NO_PROCESS);
  return true;
}

/**
 * A healthy daemon (just launched, or re-adopted at gateway start) becomes its session's live daemon and
 * is watched: an exit the gateway did not ask for stops the session if the daemon stopped it itself, else
 * fails it (and invalidates its credential). Done before the session shows running, so a client that reads
 * `running` reaches the daemon at once; the caller then removes the bootstrap file (removeBootstrap): a
 * daemon that never read it (it reads it before it is ready) leaves no secret behind.
 */
export function adoptDaemon(deps: EndingDeps, daemon: LiveDaemon, exited: Promise<string> | null): void {
  deps.live.add(daemon);
  deps.live.watch(daemon, exited, async (how) => {
    const row = await deps.store.session(daemon.sessionId);
    if (row && (await settleStopped(deps, row))) return;
    await failSession(deps, daemon.sessionId, ["running", "starting"], "daemon_exited", `the daemon exited (${how})`, "watcher_daemon_exit");
  });
}
