// The session supervisor: creates sessions, launches one daemon generation at a time per session, watches
// it (an exit of a starting or running daemon -> failed, unless the daemon stopped its session itself: an
// idle exit or a stop through the proxy -> stopped), stops, resumes (also on the first proxied request
// after an idle exit) and deletes, and keeps the live proxy targets. Operations on one session are serialized; the database row is the truth, this object
// only caches what the proxy needs (port and daemon token) for running sessions.
import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { ProtocolError } from "../../protocol/errors.ts";
import { newId } from "../../util/ids.ts";
import { selfCommand } from "../../client/daemon-launch.ts";
import { CREDENTIAL_FILE, loadCredential, writeFreshCredential } from "../../daemon/credential.ts";
import { BOOTSTRAP_ENV, type BootstrapFile } from "../../daemon/bootstrap.ts";
import { initSessionDir, openSession } from "../../daemon/store/index.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import type { GatewayContext } from "../context.ts";
import { projects } from "../db/schema.ts";
import { ServiceCredentials, type InvalidationCause } from "./credentials.ts";
import { configurationFiles, discoverPort, LaunchError, probeHealth, runPreRun, spawnDaemon, waitHealthy } from "./launch.ts";
import { isSameProcess } from "./process-identity.ts";
import { SessionRegistry, type SessionRow, type SessionView } from "./registry.ts";
import { terminateDaemon, type DaemonProcess } from "./terminate.ts";
import { LAUNCH_MODES, type LaunchMode, type SessionState, type TransitionTrigger } from "./transitions.ts";
import { createWorktree, removeWorktree, worktreeBranch, WorktreeError } from "./worktree.ts";
import { enabledServices } from "./services.ts";
import { namedVariables, sessionEnvironment } from "./daemon-env.ts";
import { assertProjectPathAllowed } from "../registry/projects.ts";
import { dataRoot } from "../../config/files.ts";
import { authDirOf } from "../../providers/device-auth/profiles.ts";
import { logEvent } from "../auth/failure-counts.ts";
import { redactText } from "../../util/redact.ts";

/** What the supervisor uses. */
export type SupervisorDeps = Pick<GatewayContext, "clock" | "config" | "dataDir" | "db" | "fleetChanges" | "logger" | "pepper">;

/** A running daemon as the proxy and the watchers know it. */
export interface LiveDaemon extends DaemonProcess {
  sessionId: string;
  generationId: string | null;
  port: number;
  token: string;
  /** Polls a re-adopted daemon (not our child) for its exit. */
  poll?: ReturnType<typeof setInterval>;
}

export type ProxyTarget = { ok: true; daemon: LiveDaemon } | { ok: false; status: 404 | 503 | 502; body: Record<string, string> };

/** How often a re-adopted daemon (whose exit we cannot wait for) is checked. */
const ADOPTED_POLL_MS = 1000;
/** Bound of the on-demand health check on GET (the spec's 30 s health timeout is for startup). */
const ON_DEMAND_HEALTH_MAX_MS = 5000;

export class SessionSupervisor {
  readonly registry: SessionRegistry;
  readonly credentials: ServiceCredentials;
  /** How to run `agent daemon`: this binary by default; tests point it elsewhere. */
  daemonCommand: string[] = selfCommand();
  /** The gateway as its daemons reach it (set once the server listens). */
  private listener: { url: string; tlsFingerprint: string | null } = { url: "http://127.0.0.1:0", tlsFingerprint: null };
  private readonly live = new Map<string, LiveDaemon>();
  private readonly busy = new Set<string>();
  /** Resumes under way for proxied requests to an idle-stopped session (they all wait for the one). */
  private readonly resuming = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly ctx: SupervisorDeps) {
    this.credentials = new ServiceCredentials(ctx.db, ctx.pepper, ctx.clock);
    // Every state change is a log line: launches (starting -> running), failures with their reason, stops, idle exits, deletes.
    this.registry = new SessionRegistry(ctx.db, ctx.clock, ctx.fleetChanges, this.credentials, ({ id, from, to, trigger, detail, patch }) =>
      logEvent(ctx.logger, to === "failed" ? "error" : "info", `session.${to}`, { session: id, from, trigger, ...(detail ? { detail: redactText(detail) } : {}), ...(to === "running" ? { pid: patch.pid ?? this.registry.get(id)?.pid ?? null } : {}), ...(patch.port ? { port: patch.port } : {}), ...(patch.daemonEpoch ? { daemon_epoch: patch.daemonEpoch } : {}) }),
    );
  }

  private get timeouts() {
    const d = this.ctx.config.daemon_sessions;
    return { stop: d.stop_timeout_secs * 1000, health: d.health_check_timeout_secs * 1000, discover: d.spawn_discover_timeout_secs * 1000, connect: d.proxy_connect_timeout_secs * 1000 };
  }

  setListener(url: string, tlsFingerprint: string | null): void {
    this.listener = { url, tlsFingerprint };
  }

  /** Stops watching (daemons keep running; the next gateway start re-adopts them). */
  close(): void {
    this.closed = true;
    for (const d of this.live.values()) if (d.poll) clearInterval(d.poll);
  }

  private sessionsDir(): string {
    return join(this.ctx.dataDir, "sessions");
  }

  private notFound(id: string): ProtocolError {
    return new ProtocolError("not_found", 404, `no session ${id}`);
  }

  private row(id: string): SessionRow {
    const row = this.registry.get(id);
    if (!row || row.state === "reaped") throw this.notFound(id);
    return row;
  }

  /** Runs one operation at a time per session. */
  private async exclusive<T>(id: string, what: string, fn: () => Promise<T>): Promise<T> {
    if (this.busy.has(id)) throw new ProtocolError("conflict", 409, `session ${id} is busy with another operation; retry ${what} when it is done`);
    this.busy.add(id);
    try {
      return await fn();
    } finally {
      this.busy.delete(id);
    }
  }

  list(): SessionView[] {
    return this.registry.list().filter((r) => r.state !== "reaped").map((r) => this.registry.view(r));
  }

  /** POST /sessions: the record in `starting`; the daemon starts in the background. */
  create(projectId: unknown, launchMode: unknown): SessionView {
    if (typeof launchMode !== "string" || !LAUNCH_MODES.includes(launchMode as LaunchMode)) {
      throw new ProtocolError("validation_failed", 422, `launch_mode must be one of ${LAUNCH_MODES.join(", ")} (got ${JSON.stringify(launchMode)?.slice(0, 40)})`);
    }
    if (typeof projectId !== "string") throw new ProtocolError("validation_failed", 422, "project_id must be a string");
    const project = this.ctx.db.select().from(projects).where(eq(projects.id, projectId)).get();
    if (!project) throw new ProtocolError("not_found", 404, `no project ${projectId.slice(0, 40)}`);
    const id = newId("ses", this.ctx.clock.now());
    const sessionDir = join(this.sessionsDir(), id);
    let worktreePath: string | null = null;
    let branch: string | null = null;
    if (launchMode === "worktree_backed") {
      worktreePath = join(this.ctx.dataDir, "worktrees", id);
      branch = worktreeBranch(id);
      mkdirSync(join(this.ctx.dataDir, "worktrees"), { recursive: true, mode: 0o700 });
      try {
        createWorktree(project.path, worktreePath, branch);
      } catch (error) {
        if (error instanceof WorktreeError) throw new ProtocolError("validation_failed", 422, error.message);
        throw error;
      }
    }
    let row: SessionRow;
    try {
      mkdirSync(sessionDir, { recursive: true, mode: 0o700 });
      // The daemon's session id is the gateway's: one id for the same session everywhere.
      initSessionDir(sessionDir, id, { project: worktreePath ?? project.path }).close();
      row = this.registry.insert({ id, projectId, launchMode: launchMode as LaunchMode, sessionDir, worktreePath, worktreeBranch: branch });
    } catch (error) {
      // No half-created session: the worktree and directory go again.
      if (worktreePath) removeWorktree(project.path, worktreePath);
      rmSync(sessionDir, { recursive: true, force: true });
      throw error;
    }
    logEvent(this.ctx.logger, "info", "session.created", { session: id, project: projectId, launch_mode: launchMode });
    this.busy.add(id);
    void this.launch(row, ["starting"], "daemon_healthy")
      .catch((error) => this.ctx.logger.error(`session ${id}: ${(error as Error).message}`))
      .finally(() => this.busy.delete(id));
    return this.registry.view(row);
  }

  /** GET /sessions/:id, after the on-demand health check of a running session. */
  async get(id: string): Promise<SessionView> {
    const row = this.row(id);
    if (row.state === "running" && !this.busy.has(id)) await this.checkHealth(row);
    return this.registry.view(this.row(id));
  }

  private async checkHealth(row: SessionRow): Promise<void> {
    const daemon = this.live.get(row.id);
    let why: string | null = null;
    if (!daemon) why = "the gateway has no live daemon for this session";
    else if (!isSameProcess(daemon)) why = "the daemon process is gone";
    else {
      const probe = await probeHealth(daemon.port, daemon.token, Math.min(this.timeouts.health, ON_DEMAND_HEALTH_MAX_MS));
      if (!probe.ok) why = probe.why;
    }
    if (why === null) return;
    this.fail(row.id, ["running"], "health_check_failed", why, "health_check_failed");
  }

  /** Moves a session to failed, invalidates its credential and ends whatever is left of its daemon. */
  private fail(id: string, from: readonly SessionState[], trigger: TransitionTrigger, detail: string, cause: InvalidationCause): void {
    const daemon = this.live.get(id);
    this.forget(id);
    if (!this.registry.transition(id, from, "failed", trigger, detail, { pid: null, pidStartTicks: null, port: null })) return;
    this.credentials.invalidate(id, cause);
    this.removeBootstrap(id);
    // A hung daemon must not stay behind as an orphan: no graceful request (it did not answer one), and no
    // waiting for it either: the caller (a GET) answers with the failed record at once.
    if (daemon) void terminateDaemon(daemon, this.timeouts.stop, false);
  }

  private forget(id: string): void {
    const d = this.live.get(id);
    if (d?.poll) clearInterval(d.poll);
    this.live.delete(id);
  }

  async stop(id: string): Promise<SessionView> {
    return this.exclusive(id, "stop", async () => {
      const row = this.row(id);
      if (row.state !== "running") throw new ProtocolError("conflict", 409, `session ${id} is ${row.state}; only a running session can be stopped`);
      const daemon = this.live.get(id);
      this.forget(id);
      if (daemon) await terminateDaemon(daemon, this.timeouts.stop);
      this.registry.transition(id, ["running"], "stopped", "stop", undefined, { pid: null, pidStartTicks: null, port: null });
      this.credentials.invalidate(id, "session_stopped");
      this.removeBootstrap(id);
      return this.registry.view(this.row(id));
    });
  }

  async resume(id: string): Promise<SessionView> {
    return this.exclusive(id, "resume", async () => {
      const row = this.row(id);
      if (row.state === "running") throw new ProtocolError("conflict", 409, `session ${id} is already running`);
      if (row.state !== "stopped" && row.state !== "failed") throw new ProtocolError("conflict", 409, `session ${id} is ${row.state}; only a stopped or failed session can be resumed`);
      const error = await this.launch(row, [row.state], "resume");
      if (error) throw new ProtocolError("unavailable", 503, `the session could not be resumed: ${error}`);
      return this.registry.view(this.row(id));
    });
  }

  /** DELETE: cleanup_pending, the daemon ended, credential invalidated, worktree removed, reaped, row deleted. */
  async remove(id: string): Promise<void> {
    await this.exclusive(id, "delete", async () => {
      const row = this.row(id);
      if (row.state !== "cleanup_pending") this.registry.transition(id, [row.state], "cleanup_pending", "delete");
      const daemon = this.live.get(id);
      this.forget(id);
      if (daemon) await terminateDaemon(daemon, this.timeouts.stop);
      else if (row.pid !== null && row.pidStartTicks !== null) await terminateDaemon({ pid: row.pid, startTicks: row.pidStartTicks, port: row.port, token: this.daemonToken(row), exited: null }, this.timeouts.stop);
      this.credentials.invalidate(id, "session_deleted");
      this.removeBootstrap(id);
      if (row.worktreePath) {
        const project = this.ctx.db.select({ path: projects.path }).from(projects).where(eq(projects.id, row.projectId)).get();
        try {
          removeWorktree(project?.path ?? row.worktreePath, row.worktreePath);
        } catch (error) {
          // The record stays in cleanup_pending; DELETE again retries the cleanup.
          throw new ProtocolError("unavailable", 503, `session ${id} is cleanup_pending: ${(error as Error).message}`);
        }
      }
      if (row.sessionDir) this.removeSessionDir(id, row.sessionDir);
      this.registry.transition(id, ["cleanup_pending"], "reaped", "delete");
      this.registry.remove(id);
    });
  }

  /**
   * The session's directory goes with its record: transcript, store, logs and credential.json (a kept
   * directory would be unreachable through any route, and the credential a secret left behind). Also a
   * layout migration's backup, staging and journal beside it. Only ever a directory under sessions/.
   */
  private removeSessionDir(id: string, sessionDir: string): void {
    const root = this.sessionsDir();
    if (sessionDir !== join(root, id)) {
      this.ctx.logger.warn(`session ${id}: its directory ${sessionDir} is not ${join(root, id)}; left in place`);
      return;
    }
    try {
      for (const path of [sessionDir, join(root, `.${id}.layout-1.backup`), join(root, `.${id}.layout-2.staging`), join(root, `.${id}.migration.json`)]) rmSync(path, { recursive: true, force: true });
    } catch (error) {
      // The record stays in cleanup_pending; DELETE again retries the cleanup.
      throw new ProtocolError("unavailable", 503, `session ${id} is cleanup_pending: its directory could not be removed (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }

  /** The proxy's view: a live daemon, or the error to answer with. */
  proxyTarget(id: string): ProxyTarget {
    const daemon = this.live.get(id);
    if (daemon) return { ok: true, daemon };
    const row = this.registry.get(id);
    if (!row || row.state === "reaped") return { ok: false, status: 404, body: { error: "not_found", message: `no session ${id}` } };
    if (row.state !== "running") return { ok: false, status: 503, body: { error: "session_not_running", state: row.state, message: `session ${id} is ${row.state}, not running` } };
    return { ok: false, status: 502, body: { error: "bad_gateway", message: `the daemon of session ${id} is unreachable` } };
  }

  /**
   * The proxy's view, after resuming a session whose daemon stopped it for being idle
   * (docs/decisions-gateway-sessions.md 30): the caller never sees the idle exit. A session stopped on
   * request stays stopped (503).
   */
  async proxyTargetResuming(id: string): Promise<ProxyTarget> {
    const target = this.proxyTarget(id);
    if (target.ok || target.status !== 503) return target;
    const row = this.registry.get(id);
    if (!row || row.state !== "stopped" || this.stoppedByItself(row) !== "idle") return target;
    let pending = this.resuming.get(id);
    if (!pending) {
      pending = this.resume(id)
        .then(
          () => {},
          (error) => this.ctx.logger.error(`session ${id}: resuming after an idle exit failed: ${(error as Error).message}`),
        )
        .finally(() => this.resuming.delete(id));
      this.resuming.set(id, pending);
    }
    await pending;
    return this.proxyTarget(id);
  }

  /** How the session's store says it ended, when its daemon stopped it itself: an idle exit or a stop. */
  private stoppedByItself(row: SessionRow): "idle" | "stop" | null {
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

  /** A daemon that exited after stopping its session: the session is stopped (not failed). */
  private settleStopped(row: SessionRow): boolean {
    const how = this.stoppedByItself(row);
    if (!how) return false;
    this.forget(row.id);
    const detail = how === "idle" ? "the daemon was idle (daemon.idle_exit_secs) and stopped the session; the next proxied request resumes it" : "the daemon stopped the session (POST /session/stop) and exited";
    if (!this.registry.transition(row.id, ["running", "starting"], "stopped", how === "idle" ? "idle_exit" : "stop", detail, { pid: null, pidStartTicks: null, port: null })) return true;
    this.credentials.invalidate(row.id, "session_stopped");
    this.removeBootstrap(row.id);
    return true;
  }

  private daemonToken(row: SessionRow): string | null {
    try {
      return row.sessionDir ? loadCredential(join(row.sessionDir, CREDENTIAL_FILE)) : null;
    } catch {
      return null;
    }
  }

  private removeBootstrap(id: string): void {
    const row = this.registry.get(id);
    if (!row?.bootstrapFile) return;
    rmSync(row.bootstrapFile, { force: true });
    this.registry.update(id, { bootstrapFile: null });
  }

  /**
   * Launches a fresh daemon generation and moves the session from `from` to running. Returns null on
   * success, else why it failed (the session is then failed, or stays stopped for a failed resume).
   */
  private async launch(row: SessionRow, from: readonly SessionState[], trigger: TransitionTrigger): Promise<string | null> {
    const id = row.id;
    const t = this.timeouts;
    const sessionDir = row.sessionDir!;
    const stderrFile = join(sessionDir, "daemon.stderr");
    let spawned: ReturnType<typeof spawnDaemon> | null = null;
    try {
      const project = this.ctx.db.select().from(projects).where(eq(projects.id, row.projectId)).get();
      if (!project) throw new LaunchError(`project ${row.projectId} is no longer registered`);
      const cwd = row.worktreePath ?? project.path;
      if (!existsSync(cwd)) throw new LaunchError(`the session directory ${cwd} does not exist`);
      // Registered before the path rules existed, or replaced since by a link to somewhere that may not be a project.
      try {
        assertProjectPathAllowed(project.path, realpathSync(project.path), this.ctx);
      } catch (error) {
        throw new LaunchError(`project ${project.id}: ${(error as Error).message}`);
      }
      const files = configurationFiles(this.ctx.dataDir, project.configName);
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
      const issued = this.credentials.issue(id, enabledServices(this.ctx.config));
      const bootstrapFile = join(sessionDir, `bootstrap-${issued.generationId}.json`);
      const bootstrap: BootstrapFile = { version: 1, session_id: id, generation_id: issued.generationId, service_token: issued.token, gateway_url: this.listener.url, gateway_tls_fingerprint: this.listener.tlsFingerprint };
      writeFileAtomic(bootstrapFile, `${JSON.stringify(bootstrap)}\n`, 0o600);
      this.registry.update(id, { bootstrapFile });
      spawned = spawnDaemon({
        command: this.daemonCommand,
        // Provider auth profiles: daemon_sessions.auth_dir, else the host data root's auth/ (as the daemon's own default).
        args: ["daemon", "--session-dir", sessionDir, "--credential-file", join(sessionDir, CREDENTIAL_FILE), "--config", files.configFile, "--auth-dir", this.ctx.config.daemon_sessions.auth_dir ?? authDirOf(dataRoot(env))],
        cwd,
        env: { ...env, [BOOTSTRAP_ENV]: bootstrapFile },
        stderrFile,
      });
      // Recorded at once, so a gateway that dies before the daemon is ready still finds (and ends) it.
      this.registry.update(id, { pid: spawned.pid, pidStartTicks: spawned.startTicks, port: null });
      const ready = await discoverPort(spawned, t.discover, stderrFile);
      await waitHealthy(ready.port, token, t.health, spawned.exited);
      const daemon: LiveDaemon = { sessionId: id, generationId: issued.generationId, pid: spawned.pid, startTicks: spawned.startTicks, port: ready.port, token, exited: spawned.exited };
      if (this.closed || !this.registry.transition(id, from, "running", trigger, undefined, { port: ready.port, daemonEpoch: ready.epoch })) {
        // Deleted (or the gateway stopped) while starting: this daemon has no session to serve.
        await terminateDaemon(daemon, t.stop);
        return "the session changed while its daemon was starting";
      }
      this.live.set(id, daemon);
      this.watch(daemon, spawned.exited);
      // A daemon that never read its bootstrap file (it reads it before it is ready) leaves no secret behind.
      this.removeBootstrap(id);
      return null;
    } catch (error) {
      const why = error instanceof LaunchError ? error.message : `internal error: ${(error as Error).message}`;
      if (spawned) await terminateDaemon({ pid: spawned.pid, startTicks: spawned.startTicks, port: null, token: null, exited: spawned.exited }, t.stop, false);
      this.credentials.invalidate(id, "spawn_failed");
      this.removeBootstrap(id);
      const patch = { pid: null, pidStartTicks: null, port: null };
      const state = this.registry.get(id)?.state;
      // A failed start fails the session; a failed resume of a stopped session leaves it stopped.
      if (state === "starting" || state === "failed") this.registry.transition(id, [state], "failed", "spawn_failed", why, patch);
      else if (state) this.registry.update(id, patch);
      return why;
    }
  }

  /** An exit the gateway did not ask for fails the session (and invalidates its credential). */
  private watch(daemon: LiveDaemon, exited: Promise<string> | null): void {
    const onGone = (how: string) => {
      // Stopped or replaced on purpose; or this gateway is shutting down (the next one reconciles).
      if (this.closed || this.live.get(daemon.sessionId) !== daemon) return;
      const row = this.registry.get(daemon.sessionId);
      if (row && this.settleStopped(row)) return;
      this.fail(daemon.sessionId, ["running", "starting"], "daemon_exited", `the daemon exited (${how})`, "watcher_daemon_exit");
    };
    if (exited) void exited.then(onGone);
    else {
      daemon.poll = setInterval(() => {
        if (!isSameProcess(daemon)) onGone("process gone");
      }, ADOPTED_POLL_MS);
      daemon.poll.unref?.();
    }
  }

  /**
   * Gateway start: every session the database says is starting or running is re-adopted when its recorded
   * process is still the same one and answers its health check; otherwise it is ended and marked failed.
   */
  async reconcile(): Promise<void> {
    await Promise.all(this.registry.list().map((row) => this.reconcileOne(row)));
  }

  private async reconcileOne(row: SessionRow): Promise<void> {
    if (row.state === "stopped" || row.state === "failed") {
      if (row.bootstrapFile) this.removeBootstrap(row.id);
      return;
    }
    if (row.state !== "running" && row.state !== "starting") return;
    const token = this.daemonToken(row);
    const proc: DaemonProcess | null = row.pid !== null && row.pidStartTicks !== null ? { pid: row.pid, startTicks: row.pidStartTicks, port: row.port, token, exited: null } : null;
    let why = "no daemon process was recorded";
    if (proc && isSameProcess(proc) && row.port !== null && token !== null) {
      const probe = await probeHealth(row.port, token, Math.min(this.timeouts.health, ON_DEMAND_HEALTH_MAX_MS));
      if (probe.ok) {
        const daemon: LiveDaemon = { sessionId: row.id, generationId: row.currentGenerationId, pid: proc.pid, startTicks: proc.startTicks, port: row.port, token, exited: null };
        if (row.state === "starting") this.registry.transition(row.id, ["starting"], "running", "reconciliation", "re-adopted a healthy daemon", { daemonEpoch: probe.epoch || row.daemonEpoch });
        this.live.set(row.id, daemon);
        this.watch(daemon, null);
        this.removeBootstrap(row.id);
        return;
      }
      why = `the daemon did not answer its health check (${probe.why})`;
    } else if (proc) why = "the daemon process is gone";
    // Gone while the gateway was down after stopping its session itself (an idle exit): stopped, not failed.
    if (!(proc && isSameProcess(proc)) && this.settleStopped(row)) return;
    if (proc) await terminateDaemon(proc, this.timeouts.stop, false);
    this.registry.transition(row.id, [row.state], "failed", "reconciliation", why, { pid: null, pidStartTicks: null, port: null });
    this.credentials.invalidate(row.id, "reconciliation");
    this.removeBootstrap(row.id);
  }
}
