// Fleet observation of one gateway process: the fleet epoch (one per database, shared by its replicas),
// the event journal (in the database) fed by this process's registry and supervisor writes
// (ctx.fleetChanges) and by its observer, catalog snapshots, open event streams and the stopped-history
// spool. One service per gateway context, created with the app's routes; `ready` settles once the epoch
// and the journal are read.
import { databaseUnavailable } from "../db/unavailable.ts";
import { faultMessage, noteDatabaseUnavailable } from "../server/errors.ts";
import { createHmac } from "node:crypto";
import type { FleetProject, FleetSession } from "../../protocol/fleet-event.ts";
import { TokenSigner } from "../../protocol/tokens.ts";
import { newId } from "../../util/ids.ts";
import { isoAt } from "../../util/clock.ts";
import type { GatewayContext } from "../context.ts";
import type { FleetChange } from "./changes.ts";
import { FleetStream } from "./event-stream.ts";
import { StoppedHistory } from "./history.ts";
import { putSettingIfAbsent } from "../db/settings.ts";
import type { GatewayDb } from "../db/handle.ts";
import { FleetJournal, type FleetEventBody } from "./journal.ts";
import { FLEET_LIMITS, type FleetLimits } from "./limits.ts";
import { FleetObserver } from "./observer.ts";
import { FleetRows, type SessionRow } from "./rows.ts";
import type { PresenceView } from "../hosts/presence.ts";
import { realScheduler, type Scheduler } from "./scheduler.ts";
import { CatalogSnapshots } from "./snapshots.ts";
import { listenForFleetEvents } from "./wake.ts";
import type { TrackedStream } from "../server/streams.ts";

/** The gateway_settings key of the fleet epoch. */
export const FLEET_EPOCH_SETTING = "fleet_epoch";

export interface FleetOptions {
  limits?: Partial<FleetLimits>;
  scheduler?: Scheduler;
}

export class FleetService {
  readonly limits: FleetLimits;
  readonly rows: FleetRows;
  readonly observer: FleetObserver;
  /** Settles once the epoch and the journal are read (journal, snapshots and history exist from then on). */
  readonly ready: Promise<void>;
  journal!: FleetJournal;
  snapshots!: CatalogSnapshots;
  history!: StoppedHistory;
  private readonly streams = new Set<FleetStream>();
  private readonly stops: (() => void)[] = [];
  private stopped = false;

  private queue: Promise<void>;

  constructor(
    private readonly ctx: FleetDeps,
    options: FleetOptions = {},
  ) {
    this.limits = { ...FLEET_LIMITS, ...options.limits };
    this.rows = new FleetRows(ctx.db, ctx.config.host_name);
    this.observer = new FleetObserver(this.rows, ctx.clock, this.limits, (id) => this.guard(() => this.announceSession(id)));
    this.ready = this.open();
    this.queue = this.ready.catch((error) => this.failed(error));
    const scheduler = options.scheduler ?? realScheduler;
    this.stops.push(
      ctx.fleetChanges.subscribe((change) => this.changed(change)),
      scheduler.every(this.limits.observeEveryMs, () => void this.tick()),
      scheduler.every(this.limits.heartbeatMs, () => this.heartbeat()),
    );
  }

  get epoch(): string {
    return this.journal.epoch;
  }

  /**
   * The epoch is written once per database (first replica wins) and the journal is read from it; on
   * PostgreSQL the replica then listens for other replicas' events. Rows written while no process
   * journaled them (a crash between a write and its event) are announced now, and at every observer round.
   */
  private async open(): Promise<void> {
    const { db, clock, pepper } = this.ctx;
    const epoch = await putSettingIfAbsent(db, FLEET_EPOCH_SETTING, () => newId("fle", clock.now()), new Date(clock.now()));
    // Tokens from another database under the same pepper verify, so they are told apart as another epoch.
    const key = createHmac("sha256", pepper).update("agent-gateway fleet tokens v1").digest();
    const fleetSigner = new TokenSigner(key, "fleet", epoch);
    this.journal = new FleetJournal(epoch, db, fleetSigner, clock, this.limits);
    this.snapshots = new CatalogSnapshots(epoch, fleetSigner, clock, this.limits);
    this.history = new StoppedHistory(key, epoch, this.rows, clock, this.limits);
    await this.journal.catchUp();
    const unlisten = await listenForFleetEvents(db, () => void this.journal.catchUp().catch((error) => this.failed(error)));
    if (this.stopped) return void (await unlisten());
    this.stops.push(() => void unlisten().catch(() => {}));
    await this.reconcile();
  }

  /** The first page of a new catalog snapshot (JSON text). */
  async catalog(pageEntries?: number): Promise<string> {
    // The journal is read first: a change committed meanwhile is in both the rows and the stream (never in neither).
    await this.journal.catchUp();
    const projects = await this.rows.projects();
    const presence = await this.rows.presence(this.ctx.clock.now());
    const sessions = (await this.rows.sessions()).map((row) => this.sessionView(row, presence));
    return this.snapshots.capture(this.journal.cursorAt(this.journal.position), projects, sessions, pageEntries);
  }

  /** Opens an event stream at a resolved journal position. */
  openStream(position: number, tracked: TrackedStream): FleetStream {
    const stream = new FleetStream(this.journal, position, tracked, this.ctx.clock, this.limits, (s) => this.streams.delete(s));
    this.streams.add(stream);
    return stream;
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /**
   * One observer round, then stale flags re-checked (a row turning stale is announced), then rows that
   * changed without their event announced.
   */
  async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.ready;
      await this.observer.round();
    } catch (error) {
      return this.failed(error);
    }
    await this.guard(async () => {
      // Only rows whose view moved away from the journal's take a transaction: this host's running sessions
      // (their observations), and any session whose host went offline or came back (every front looks; the
      // journal's check inside the append makes it one event).
      const presence = await this.rows.presence(this.ctx.clock.now());
      for (const row of await this.rows.sessions()) {
        const view = this.sessionView(row, presence);
        const key = `s:${row.id}`;
        if (!this.unannounced(key, view)) continue;
        const last = this.journal.view(key);
        const presenceMoved = (last?.kind === "session" ? (last.session.host_online ?? true) : true) !== view.host_online;
        if ((row.state === "running" && this.rows.owns(row)) || presenceMoved) await this.announceSession(row.id);
      }
      // A replica killed between a write and its event leaves the change to the survivors' next round.
      await this.journal.catchUp();
      await this.reconcile();
    });
  }

  heartbeat(): void {
    for (const stream of this.streams) stream.heartbeat();
  }

  stop(): void {
    this.stopped = true;
    for (const stop of this.stops.splice(0)) stop();
    for (const stream of [...this.streams]) stream.close();
  }

  /**
   * The fleet row of a session: the database row plus the observer's last summary when running. A session
   * whose host is offline is stale (its daemon may still run), never failed.
   */
  sessionView(row: SessionRow, presence: PresenceView): FleetSession {
    const running = row.state === "running";
    const online = presence.online(row.ownerHost);
    if (running && !this.rows.owns(row)) return this.observedElsewhere(row, online);
    const seen = running ? this.observer.observation(row.id) : undefined;
    // `reaped` rows never get here (await rows.sessions() leaves them out, announceSession removes them).
    const state = row.state as FleetSession["state"];
    return {
      session_id: row.id,
      project_id: row.projectId,
      launch_mode: row.launchMode,
      state,
      daemon_epoch: row.daemonEpoch,
      updated_at: isoAt(row.updatedAt),
      summary: seen?.summary ?? null,
      observed_at: seen ? isoAt(seen.observedAt) : null,
      stale: running && (!online || !seen || this.ctx.clock.now() - seen.observedAt > this.limits.freshnessMs),
      owner_host: row.ownerHost,
      host_online: online,
    };
  }

  /**
   * A running session another host supervises: that host observes its daemon and journals what it sees,
   * so the summary, its time and the stale flag are the journal's last word on it.
   */
  private observedElsewhere(row: SessionRow, online: boolean): FleetSession {
    const last = this.journal.view(`s:${row.id}`);
    const seen = last?.kind === "session" && last.session.state === "running" ? last.session : undefined;
    return {
      session_id: row.id,
      project_id: row.projectId,
      launch_mode: row.launchMode,
      state: "running",
      daemon_epoch: row.daemonEpoch,
      updated_at: isoAt(row.updatedAt),
      summary: seen?.summary ?? null,
      observed_at: seen?.observed_at ?? null,
      stale: !online || (seen?.stale ?? true),
      owner_host: row.ownerHost,
      host_online: online,
    };
  }

  private changed(change: FleetChange): Promise<void> {
    return this.guard(() => (change.kind === "project" ? this.announceProject(change.id) : this.announceSession(change.id)));
  }

  /** Whether `view` differs from the row's last journaled view (a new observed_at alone is no change). */
  private unannounced(key: string, view: FleetProject | FleetSession | "removed"): boolean {
    const last = this.journal.view(key);
    // A removal the journal never saw is announced: a client may hold the row from a catalog.
    if (view === "removed") return last?.kind !== "removed";
    if (!last || last.kind === "removed") return true;
    const before = last.kind === "project" ? last.project : { ...last.session, observed_at: null };
    const now = "session_id" in view ? { ...view, observed_at: null } : view;
    return JSON.stringify(before) !== JSON.stringify(now);
  }

  /** Journals the project's current row (or its removal) unless the journal already says exactly that. */
  private announceProject(id: string): Promise<void> {
    return this.announce(async (rows) => {
      const project = await rows.project(id);
      if (!project) return this.unannounced(`p:${id}`, "removed") ? { type: "project_removed", project_id: id } : null;
      return this.unannounced(`p:${id}`, project) ? { type: "project_upserted", project } : null;
    });
  }

  private announceSession(id: string): Promise<void> {
    return this.announce(async (rows) => {
      const row = await rows.session(id);
      if (!row || row.state === "reaped") {
        this.observer.forget(id);
        return this.unannounced(`s:${id}`, "removed") ? { type: "session_removed", session_id: id } : null;
      }
      if (row.state !== "running") this.observer.forget(id);
      const session = this.sessionView(row, await rows.presence(this.ctx.clock.now()));
      return this.unannounced(`s:${id}`, session) ? { type: "session_upserted", session } : null;
    });
  }

  /** The row is read inside the append's transaction: events follow the order in which rows were committed. */
  private async announce(compose: (rows: FleetRows) => Promise<FleetEventBody | null>): Promise<void> {
    await this.journal.append((tx: GatewayDb) => compose(this.rows.on(tx)));
  }

  /**
   * Announces what the journal lacks: a row whose updated_at differs from its last event's, a row the
   * journal has no event of that changed while the journal retains events, and a journaled row that is
   * gone. Nothing is re-announced for rows older than the retained journal: a cursor from before them is
   * already too old. A writer's own announcement racing this one is one event: both compare with the
   * journal inside the append's transaction.
   */
  private async reconcile(): Promise<void> {
    const oldest = this.journal.oldestAt;
    const projects = new Map((await this.rows.projects()).map((p) => [`p:${p.project_id}`, p.updated_at]));
    const sessions = new Map((await this.rows.sessions()).map((s) => [`s:${s.id}`, isoAt(s.updatedAt)]));
    const stale: string[] = [];
    for (const [key, updatedAt] of [...projects, ...sessions]) {
      const last = this.journal.view(key);
      const journaled = last?.kind === "project" ? last.project.updated_at : last?.kind === "session" ? last.session.updated_at : undefined;
      if (journaled === undefined ? oldest !== null && Date.parse(updatedAt) >= oldest : journaled !== updatedAt) stale.push(key);
    }
    for (const [key, last] of this.journal.knownViews()) if (last.kind !== "removed" && !projects.has(key) && !sessions.has(key)) stale.push(key);
    // Run directly: timers' and signals' work waits for `ready`, which waits for this.
    for (const key of stale) await (key.startsWith("p:") ? this.announceProject(key.slice(2)) : this.announceSession(key.slice(2)));
  }

  /**
   * Database work from timers and signals, one at a time in the order asked (the journal then follows the
   * order of the changes); after the gateway closed its database, the service stops.
   */
  private guard(work: () => Promise<void>): Promise<void> {
    const run = async () => {
      if (this.stopped) return;
      try {
        await work();
      } catch (error) {
        this.failed(error);
      }
    };
    this.queue = this.queue.then(run, run);
    return this.queue;
  }

  private failed(error: unknown): void {
    // Work in flight when the gateway stopped fails on the closed database: nothing to report.
    if (this.stopped) return;
    if (error instanceof RangeError && /closed database/i.test(error.message)) return this.stop();
    // An outage is the request path's one db.unavailable line per period, not a line per round.
    const unavailable = databaseUnavailable(error);
    if (unavailable) return noteDatabaseUnavailable(unavailable, this.ctx.logger);
    this.ctx.logger.warn(`fleet observation: ${faultMessage(error)}`);
  }
}

/** What fleet observation uses. The service is kept per deps object (the gateway's context). */
export type FleetDeps = Pick<GatewayContext, "clock" | "config" | "fleetChanges" | "logger" | "pepper" | "db">;

const services = new WeakMap<FleetDeps, FleetService>();

/** The fleet service of a gateway context, created on first use. */
export function fleetOf(ctx: FleetDeps): FleetService {
  let service = services.get(ctx);
  if (!service) {
    service = new FleetService(ctx);
    services.set(ctx, service);
  }
  return service;
}

/** Stops the context's fleet service, if it has one (the gateway stops). */
export function stopFleet(ctx: FleetDeps): void {
  services.get(ctx)?.stop();
}

/** Replaces the context's fleet service (tests: fake scheduler, small limits). */
export function installFleet(ctx: FleetDeps, options: FleetOptions): FleetService {
  services.get(ctx)?.stop();
  const service = new FleetService(ctx, options);
  services.set(ctx, service);
  return service;
}
