// Whether a session's daemon is still there and answering, when the watchers cannot tell: on demand (GET of
// a running session) and at gateway start, when every session the database says is starting or running is
// re-adopted if its recorded process is still the same one and answers its health check, else ended and
// failed (or stopped, if its daemon stopped the session itself while the gateway was down). Only this
// host's sessions (ownership.ts): the supervisor never checks another host's. And after the store was out
// of reach (a host agent reconnecting to a front): a launch whose last state change went unrecorded is
// settled to what is true (settleLaunch).
import { adoptDaemon, failSession, NO_PROCESS, removeBootstrap, settleStopped, type EndingDeps } from "./endings.ts";
import { probeHealth } from "./launch.ts";
import { recordedDaemon, type LiveDaemon } from "./live-daemons.ts";
import { otherOwner } from "./ownership.ts";
import { isSameProcess } from "./process-identity.ts";
import type { SessionRow } from "./registry.ts";
import { terminateDaemon } from "./terminate.ts";
import { onDemandHealthMs, sessionTimeouts } from "./timeouts.ts";

/** The on-demand check of a running session: a daemon that is gone (unless it stopped its session) or does not answer fails it. */
export async function checkHealth(deps: EndingDeps, row: SessionRow): Promise<void> {
  const daemon = deps.live.get(row.id);
  let why: string | null = null;
  if (!daemon) why = "the gateway has no live daemon for this session";
  else if (!isSameProcess(daemon)) why = "the daemon process is gone";
  else {
    const probe = await probeHealth(daemon.port, daemon.token, onDemandHealthMs(deps.config));
    if (!probe.ok) why = probe.why;
  }
  if (why === null) return;
  // A daemon that stopped its session itself and exited (an idle exit) may be seen here before its exit
  // watcher has settled the row (the watcher awaits the database): the session is stopped, not failed.
  if ((!daemon || !isSameProcess(daemon)) && (await settleStopped(deps, row))) return;
  await failSession(deps, row.id, ["running"], "health_check_failed", why, "health_check_failed");
}

/** Gateway start: re-adopts or settles every session host `me` owns; another host's daemon is not ours to judge. */
export async function reconcile(deps: EndingDeps, me: string): Promise<void> {
  const own = (await deps.store.sessions()).filter((row) => otherOwner(row.ownerHost, me) === null);
  await Promise.all(own.map((row) => reconcileOne(deps, row)));
}

async function reconcileOne(deps: EndingDeps, row: SessionRow): Promise<void> {
  if (row.state === "stopped" || row.state === "failed") {
    if (row.bootstrapFile) await removeBootstrap(deps.store, row.id);
    return;
  }
  if (row.state !== "running" && row.state !== "starting") return;
  const proc = recordedDaemon(row);
  let why = "no daemon process was recorded";
  if (proc && isSameProcess(proc) && row.port !== null && proc.token !== null) {
    const probe = await probeHealth(row.port, proc.token, onDemandHealthMs(deps.config));
    if (probe.ok) {
      const daemon: LiveDaemon = { sessionId: row.id, generationId: row.currentGenerationId, pid: proc.pid, startTicks: proc.startTicks, port: row.port, token: proc.token, exited: null };
      // Held before it shows running, as after a launch (launch-generation.ts).
      adoptDaemon(deps, daemon, null);
      if (row.state === "starting") await deps.store.transition(row.id, ["starting"], "running", "reconciliation", "re-adopted a healthy daemon", { daemonEpoch: probe.epoch || row.daemonEpoch });
      await removeBootstrap(deps.store, row.id);
      return;
    }
    why = `the daemon did not answer its health check (${probe.why})`;
  } else if (proc) why = "the daemon process is gone";
  // Gone while the gateway was down after stopping its session itself (an idle exit): stopped, not failed.
  if (!(proc && isSameProcess(proc)) && await settleStopped(deps, row)) return;
  if (proc) await terminateDaemon(proc, sessionTimeouts(deps.config).stop, false);
  await deps.store.transition(row.id, [row.state], "failed", "reconciliation", why, NO_PROCESS);
  await deps.store.invalidateCredentials(row.id, "reconciliation");
  await removeBootstrap(deps.store, row.id);
}

/**
 * A session of this host whose launch is over (no operation holds it) but whose record does not say how it
 * ended: the store went away as the launch recorded it (a host agent's front lost with the answer), so the
 * row was left `starting` (or `stopped`/`failed` for a resume). Moved to what is true: running on the
 * daemon this host holds when it answers its health check; a starting row with no such daemon failed (its
 * launch gave up: whatever process it recorded is ended). Never a second daemon: nothing is launched here.
 */
export async function settleLaunch(deps: EndingDeps, row: SessionRow): Promise<void> {
  if (row.state === "running") return;
  const daemon = deps.live.get(row.id);
  if (daemon && isSameProcess(daemon)) {
    const probe = await probeHealth(daemon.port, daemon.token, onDemandHealthMs(deps.config));
    if (probe.ok) {
      const trigger = row.state === "starting" ? "daemon_healthy" : "resume";
      const patch = { pid: daemon.pid, pidStartTicks: daemon.startTicks, port: daemon.port, daemonEpoch: probe.epoch || row.daemonEpoch };
      if (await deps.store.transition(row.id, [row.state], "running", trigger, "recorded after the store came back: the first answer was lost", patch)) await removeBootstrap(deps.store, row.id);
      return;
    }
    if (row.state !== "starting") {
      // A resume's daemon that no longer answers: the session stays as recorded, the daemon goes.
      deps.live.forget(row.id);
      await terminateDaemon(daemon, sessionTimeouts(deps.config).stop, false);
      return;
    }
  }
  if (row.state !== "starting") return;
  const why = daemon ? "the daemon of an unrecorded launch is gone" : "the launch ended while its state could not be recorded";
  // A process the row records that this host does not hold: the launch gave up on it; it must not stay behind.
  const proc = daemon ? null : recordedDaemon(row);
  if (proc && isSameProcess(proc)) await terminateDaemon(proc, sessionTimeouts(deps.config).stop, false);
  await failSession(deps, row.id, ["starting"], "spawn_failed", why, "spawn_failed");
}
