// Launching one daemon generation of a session, on create and on resume: the project and its path rules,
// the environment, pre-run.sh, a fresh daemon credential and service credential (handed over in a bootstrap
// file), the spawn, port discovery and the health wait (launch.ts), then the move to running. A launch that
// fails ends what it started and fails the session (a failed resume of a stopped session leaves it stopped).
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/errors.ts";
import { CREDENTIAL_FILE, writeFreshCredential } from "../../daemon/credential.ts";
import { BOOTSTRAP_ENV, type BootstrapFile } from "../../daemon/bootstrap.ts";
import { openSession } from "../../daemon/store/index.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import { dataRoot } from "../../config/files.ts";
import { authDirOf } from "../../providers/device-auth/profiles.ts";
import type { GatewayContext } from "../context.ts";
import { assertProjectPathAllowed } from "../registry/projects.ts";
import { namedVariables, sessionEnvironment } from "./daemon-env.ts";
import { adoptDaemon, NO_PROCESS, removeBootstrap, type EndingDeps } from "./endings.ts";
import { discoverPort, LaunchError, runPreRun, spawnDaemon, waitHealthy, writeLaunchConfig } from "./launch.ts";
import type { LiveDaemon } from "./live-daemons.ts";
import type { SessionRow } from "./registry.ts";
import type { LaunchConfig, SessionStore } from "./store.ts";
import { enabledServices } from "./services.ts";
import { terminateDaemon } from "./terminate.ts";
import { sessionTimeouts } from "./timeouts.ts";
import type { SessionState, TransitionTrigger } from "./transitions.ts";

/** How to run `agent daemon` and where its daemons reach the gateway; read when a daemon is launched. */
export interface LaunchSettings {
  /** This binary by default; tests point it elsewhere. */
  daemonCommand: string[];
  /** The gateway as its daemons reach it (set once the server listens). */
  listener: { url: string; tlsFingerprint: string | null };
}

/** What a launch uses. */
export type LaunchDeps = EndingDeps & Pick<GatewayContext, "dataDir" | "logger"> & { settings: LaunchSettings };

/**
 * Launches a fresh daemon generation and moves the session from `from` to running. Returns null on
 * success, else why it failed (the session is then failed, or stays stopped for a failed resume).
 * `onRunning` is called as soon as the running state is committed (before it is announced).
 */
export async function launchGeneration(deps: LaunchDeps, row: SessionRow, from: readonly SessionState[], trigger: TransitionTrigger, onRunning?: () => void): Promise<string | null> {
  const { store } = deps;
  const id = row.id;
  const t = sessionTimeouts(deps.config);
  const sessionDir = row.sessionDir!;
  const stderrFile = join(sessionDir, "daemon.stderr");
  let spawned: ReturnType<typeof spawnDaemon> | null = null;
  try {
    const project = await store.project(row.projectId);
    if (!project) throw new LaunchError(`project ${row.projectId} is no longer registered`);
    const cwd = row.worktreePath ?? project.path;
    if (!existsSync(cwd)) throw new LaunchError(`the session directory ${cwd} does not exist`);
    // Registered before the path rules existed, or replaced since by a link to somewhere that may not be a project.
    try {
      assertProjectPathAllowed(project.path, realpathSync(project.path), deps);
    } catch (error) {
      throw new LaunchError(`project ${project.id}: ${(error as Error).message}`);
    }
    const files = writeLaunchConfig(sessionDir, await launchConfig(store, project.configName));
    // Not the gateway's whole environment: a documented base plus what the configuration names (daemon-env.ts).
    const env = { ...sessionEnvironment(process.env, namedVariables(files.configFile)), AGENT_GATEWAY_SESSION_ID: id, AGENT_PROJECT_DIR: cwd };
    if (files.preRunScript) await runPreRun(files.preRunScript, cwd, env, join(sessionDir, "pre-run.log"), t.discover);
    // A stopped session's store accepts no commands: resuming makes it running again, as `agent continue` does.
    if (trigger === "resume") {
      const store = openSession(sessionDir);
      try {
        if (store.meta().state !== "running") store.setState("running");
      } finally {
        store.close();
      }
    }
    const token = writeFreshCredential(join(sessionDir, CREDENTIAL_FILE));
    const issued = await store.issueCredential(id, enabledServices(deps.config));
    const bootstrapFile = join(sessionDir, `bootstrap-${issued.generationId}.json`);
    const listener = deps.settings.listener;
    const bootstrap: BootstrapFile = { version: 1, session_id: id, generation_id: issued.generationId, service_token: issued.token, gateway_url: listener.url, gateway_tls_fingerprint: listener.tlsFingerprint };
    writeFileAtomic(bootstrapFile, `${JSON.stringify(bootstrap)}\n`, 0o600);
    await store.update(id, { bootstrapFile });
    spawned = spawnDaemon({
      command: deps.settings.daemonCommand,
      // Provider auth profiles: daemon_sessions.auth_dir, else the host data root's auth/ (as the daemon's own default).
      args: ["daemon", "--session-dir", sessionDir, "--credential-file", join(sessionDir, CREDENTIAL_FILE), "--config", files.configFile, "--auth-dir", deps.config.daemon_sessions.auth_dir ?? authDirOf(dataRoot(env))],
      cwd,
      env: { ...env, [BOOTSTRAP_ENV]: bootstrapFile },
      stderrFile,
    });
    // Recorded at once, so a gateway that dies before the daemon is ready still finds (and ends) it.
    await store.update(id, { pid: spawned.pid, pidStartTicks: spawned.startTicks, port: null });
    const ready = await discoverPort(spawned, t.discover, stderrFile);
    await waitHealthy(ready.port, token, t.health, spawned.exited);
    const daemon: LiveDaemon = { sessionId: id, generationId: issued.generationId, pid: spawned.pid, startTicks: spawned.startTicks, port: ready.port, token, exited: spawned.exited };
    if (deps.live.closed) {
      // The gateway is stopping: this daemon has no gateway to serve it.
      await terminateDaemon(daemon, t.stop);
      return "the gateway stopped while the daemon was starting";
    }
    // Held and watched before the session shows running: a client that reads `running` reaches it through
    // the proxy, and may stop it, at once (the create's launch is then over for it).
    adoptDaemon(deps, daemon, spawned.exited);
    let moved: boolean;
    try {
      moved = await store.transition(id, from, "running", trigger, undefined, { port: ready.port, daemonEpoch: ready.epoch }, onRunning);
    } catch (error) {
      // No answer (a host agent's front went away): the move may have been made. The daemon is healthy and
      // held, so it is kept (its exit is still watched); a row left in starting is moved to running once the
      // store answers again (a host agent's reconnection: health.ts settleLaunch), never by ending the daemon.
      const why = `the running state may not have been recorded: ${(error as Error).message}`;
      deps.logger.warn(`session ${id}: ${why}`);
      return why;
    }
    if (!moved) {
      // Changed while starting (its daemon exited): this daemon has no session to serve.
      deps.live.forget(id);
      await terminateDaemon(daemon, t.stop);
      return "the session changed while its daemon was starting";
    }
    try {
      await removeBootstrap(store, id);
    } catch (error) {
      // Running on this daemon now: a store that fails here (a host agent's front gone between the two
      // writes) must not end it. The file is removed first; the row's reference goes when the session ends.
      deps.logger.warn(`session ${id}: the bootstrap file's record was not cleared: ${(error as Error).message}`);
    }
    return null;
  } catch (error) {
    const why = error instanceof LaunchError ? error.message : `internal error: ${(error as Error).message}`;
    if (spawned) deps.live.forget(id);
    if (spawned) await terminateDaemon({ pid: spawned.pid, startTicks: spawned.startTicks, port: null, token: null, exited: spawned.exited }, t.stop, false);
    await store.invalidateCredentials(id, "spawn_failed");
    await removeBootstrap(store, id);
    const state = (await store.session(id))?.state;
    // A failed start fails the session; a failed resume of a stopped session leaves it stopped.
    if (state === "starting" || state === "failed") await store.transition(id, [state], "failed", "spawn_failed", why, NO_PROCESS);
    else if (state) await store.update(id, NO_PROCESS);
    return why;
  }
}

/** The project's configuration from the store; a configuration without files fails the launch with the store's reason. */
async function launchConfig(store: SessionStore, configName: string): Promise<LaunchConfig> {
  try {
    return await store.launchConfig(configName);
  } catch (error) {
    if (error instanceof ProtocolError && error.status === 404) throw new LaunchError(error.message);
    throw error;
  }
}
