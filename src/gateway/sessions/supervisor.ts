// The session supervisor: creates sessions, launches one daemon generation at a time per session, watches
// it (an exit of a starting or running daemon -> failed, unless the daemon stopped its session itself: an
// idle exit or a stop through the proxy -> stopped), stops, resumes (also on the first proxied request
// after an idle exit) and deletes, and keeps the live proxy targets. Operations on one session are
// serialized here; the database row is the truth, this object only caches what the proxy needs (port and
// daemon token) for running sessions. The steps themselves: create-session.ts, launch-generation.ts,
// endings.ts (failed, stopped; exit watching), health.ts (on-demand check, reconciliation at start),
// delete-session.ts, proxy-target.ts (resume on a proxied request); live-daemons.ts holds the daemons.
// Only sessions this host owns are touched (ownership.ts): another host's session is read, never checked,
// settled, stopped or deleted here. The records are reached only through a SessionStore (store.ts): the
// database in `serve` (db-store.ts), a front in a host agent.
import { ProtocolError } from "../../protocol/errors.ts";
import { selfCommand } from "../../client/daemon-launch.ts";
import type { GatewayContext } from "../context.ts";
import { logEvent } from "../auth/failure-counts.ts";
import { createSession, type CreateSessionDeps } from "./create-session.ts";
import { deleteSession, type DeleteSessionDeps } from "./delete-session.ts";
import { stopSession } from "./endings.ts";
import { checkHealth, reconcile, settleLaunch } from "./health.ts";
import { launchGeneration, type LaunchDeps, type LaunchSettings } from "./launch-generation.ts";
import { LiveDaemons } from "./live-daemons.ts";
import { assertOwned, otherOwner } from "./ownership.ts";
import { IdleResume, proxyTarget, type ProxyTarget } from "./proxy-target.ts";
import type { SessionRow, SessionView } from "./registry.ts";
import type { SessionStore } from "./store.ts";

/** What the supervisor uses besides its store. */
export type SupervisorDeps = Pick<GatewayContext, "clock" | "config" | "dataDir" | "logger">;

/** Claims the rows this host takes on at start (ownership.ts claimRows; a database gateway only); returns how many. */
export type ClaimRows = (me: string) => Promise<number>;

export class SessionSupervisor {
  private readonly live: LiveDaemons;
  private readonly settings: LaunchSettings = { daemonCommand: selfCommand(), listener: { url: "http://127.0.0.1:0", tlsFingerprint: null } };
  /** What the steps use: the supervisor's parts, and the context's members read at each use (tests swap the logger). */
  private readonly deps: LaunchDeps & CreateSessionDeps & DeleteSessionDeps;
  private readonly busy = new Set<string>();
  private readonly idleResume: IdleResume;
  /** The reconciliation under way (`reconcile`): operations on this host's sessions wait for it (decisions-gateway-sessions 34). */
  private reconciling: Promise<void> | null = null;
  /** Creates between their insert and taking the session (`busy`): settleLaunches waits for them. */
  private readonly inserting = new Set<Promise<unknown>>();

  constructor(
    private readonly ctx: SupervisorDeps,
    readonly store: SessionStore,
    private readonly claimRows: ClaimRows | null = null,
  ) {
    this.live = new LiveDaemons((id, error) => logEvent(ctx.logger, "error", "session.exit_unrecorded", { session: id, error: error instanceof Error ? error.message : String(error) }));
    this.deps = {
      store,
      live: this.live,
      settings: this.settings,
      get clock() {
        return ctx.clock;
      },
      get config() {
        return ctx.config;
      },
      get dataDir() {
        return ctx.dataDir;
      },
      get logger() {
        return ctx.logger;
      },
    };
    const deps = this.deps;
    this.idleResume = new IdleResume({
      store,
      live: this.live,
      get config() {
        return deps.config;
      },
      get logger() {
        return deps.logger;
      },
      resume: (id) => this.resume(id),
    });
  }

  /** How to run `agent daemon`: this binary by default; tests point it elsewhere. */
  get daemonCommand(): string[] {
    return this.settings.daemonCommand;
  }

  set daemonCommand(command: string[]) {
    this.settings.daemonCommand = command;
  }

  /** The gateway as its daemons reach it (set once the server listens). */
  setListener(url: string, tlsFingerprint: string | null): void {
    this.settings.listener = { url, tlsFingerprint };
  }

  /** Stops watching (daemons keep running; the next gateway start re-adopts them). */
  close(): void {
    this.live.close();
  }

  private async row(id: string): Promise<SessionRow> {
    const row = await this.store.session(id);
    if (!row || row.state === "reaped") throw new ProtocolError("not_found", 404, `no session ${id}`);
    return row;
  }

  /** The row of a session this host supervises; 409 `owned_by_other_host` for another host's. */
  private async ownRow(id: string): Promise<SessionRow> {
    const row = await this.row(id);
    assertOwned("session", row, this.ctx.config.host_name);
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

  async list(): Promise<SessionView[]> {
    return Promise.all((await this.store.sessions()).filter((r) => r.state !== "reaped").map((r) => this.store.view(r)));
  }

  /**
   * Resolves once no reconciliation is under way. A launch beside it could have its row, still starting
   * with no daemon recorded, judged by it (failed, its daemon ended); a stop, resume, delete, health check
   * or proxied request could act on a session it is about to re-adopt or fail. They wait instead.
   */
  private async settled(): Promise<void> {
    if (this.reconciling) await this.reconciling;
  }

  /** `run` once no reconciliation is under way; at once (no extra await) on the proxy's usual path. */
  private afterReconcile<T>(run: () => Promise<T>): Promise<T> {
    return this.reconciling ? this.reconciling.then(run) : run();
  }

  /** POST /sessions: the record in `starting`; the daemon starts in the background. */
  async create(projectId: unknown, launchMode: unknown): Promise<SessionView> {
    await this.settled();
    const inserted = createSession(this.deps, projectId, launchMode).then((row) => {
      this.busy.add(row.id);
      return row;
    });
    this.inserting.add(inserted);
    const row = await inserted.finally(() => this.inserting.delete(inserted));
    const id = row.id;
    // The launch is over for clients once the session is running: a client that reads `running` may stop it.
    let held = true;
    const release = () => {
      // Once: after the running state the session may already be busy with the caller's next operation.
      if (held) this.busy.delete(id);
      held = false;
    };
    void launchGeneration(this.deps, row, ["starting"], "daemon_healthy", release)
      .catch((error) => this.ctx.logger.error(`session ${id}: ${(error as Error).message}`))
      .finally(release);
    return await this.store.view(row);
  }

  /** GET /sessions/:id, after the on-demand health check of a running session this host supervises (another host's is only read). */
  async get(id: string): Promise<SessionView> {
    await this.settled();
    const row = await this.row(id);
    if (row.state === "running" && !this.busy.has(id) && otherOwner(row.ownerHost, this.ctx.config.host_name) === null) await checkHealth(this.deps, row);
    return await this.store.view(await this.row(id));
  }

  async stop(id: string): Promise<SessionView> {
    return this.exclusive(id, "stop", async () => {
      await this.settled();
      const row = await this.ownRow(id);
      if (row.state !== "running") throw new ProtocolError("conflict", 409, `session ${id} is ${row.state}; only a running session can be stopped`);
      await stopSession(this.deps, id);
      return await this.store.view(await this.row(id));
    });
  }

  async resume(id: string): Promise<SessionView> {
    return this.exclusive(id, "resume", async () => {
      await this.settled();
      const row = await this.ownRow(id);
      if (row.state === "running") throw new ProtocolError("conflict", 409, `session ${id} is already running`);
      if (row.state !== "stopped" && row.state !== "failed") throw new ProtocolError("conflict", 409, `session ${id} is ${row.state}; only a stopped or failed session can be resumed`);
      const error = await launchGeneration(this.deps, row, [row.state], "resume");
      if (error) throw new ProtocolError("unavailable", 503, `the session could not be resumed: ${error}`);
      return await this.store.view(await this.row(id));
    });
  }

  /** DELETE: cleanup_pending, the daemon ended, credential invalidated, worktree removed, reaped, row deleted. */
  async remove(id: string): Promise<void> {
    await this.exclusive(id, "delete", async () => {
      await this.settled();
      await deleteSession(this.deps, await this.ownRow(id));
    });
  }

  /** The proxy's view: a live daemon, or the error to answer with. */
  proxyTarget(id: string): Promise<ProxyTarget> {
    return this.afterReconcile(() => proxyTarget(this.deps, id));
  }

  /**
   * The proxy's view, after resuming a session whose daemon stopped it for being idle
   * (docs/decisions-gateway-sessions.md 30): the caller never sees the idle exit. A session stopped on
   * request stays stopped (503).
   */
  proxyTargetResuming(id: string): Promise<ProxyTarget> {
    return this.afterReconcile(() => this.idleResume.target(id));
  }

  /**
   * After this host's store was out of reach (a host agent reconnecting): every session of this host whose
   * launch is over but whose record does not say so (its running or failed state went unrecorded, the
   * answer lost with the connection) is moved to what is true (health.ts settleLaunch). A session with an
   * operation under way is left to it.
   */
  async settleLaunches(): Promise<void> {
    const me = this.ctx.config.host_name;
    const rows = (await this.store.sessions()).filter((r) => otherOwner(r.ownerHost, me) === null && (r.state === "starting" || ((r.state === "stopped" || r.state === "failed") && this.live.get(r.id))));
    // A create whose row is in that list may not have taken its session yet.
    await Promise.allSettled([...this.inserting]);
    for (const row of rows) {
      if (this.busy.has(row.id)) continue;
      await this.exclusive(row.id, "settle", async () => {
        const fresh = await this.store.session(row.id);
        if (fresh) await settleLaunch(this.deps, fresh);
      });
    }
  }

  /**
   * Gateway start: the rows this host takes on are claimed (ownership.ts), then every session of this host
   * the database says is starting or running is re-adopted when its recorded process is still the same one
   * and answers its health check; otherwise it is ended and marked failed. Other hosts' sessions are left alone.
   * Until it is done, creates and the operations on sessions wait (`settled`): the wait begins when this
   * is called, before its first await, so a caller that calls it right after its listener opens leaves no
   * request a moment to start beside it.
   */
  reconcile(): Promise<void> {
    const run = this.reconcileRows();
    const done: Promise<void> = run.then(
      () => {},
      () => {},
    ).finally(() => {
      if (this.reconciling === done) this.reconciling = null;
    });
    this.reconciling = done;
    return run;
  }

  private async reconcileRows(): Promise<void> {
    const me = this.ctx.config.host_name;
    const claimed = this.claimRows ? await this.claimRows(me) : 0;
    if (claimed > 0) logEvent(this.ctx.logger, "info", "sessions.rows_claimed", { host: me, rows: claimed });
    await reconcile(this.deps, me);
  }
}
