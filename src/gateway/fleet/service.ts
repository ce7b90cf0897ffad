// Fleet observation of one gateway process: its fleet epoch, the event journal fed by registry and
// supervisor changes (ctx.fleetChanges) and by the observer, catalog snapshots, open event streams and
// the stopped-history spool. One service per gateway context, created with the app's routes.
import { createHmac } from "node:crypto";
import type { FleetSession } from "../../protocol/fleet-event.ts";
import { TokenSigner } from "../../protocol/tokens.ts";
import { newId } from "../../util/ids.ts";
import { isoAt } from "../../util/clock.ts";
import type { GatewayContext } from "../context.ts";
import type { FleetChange } from "./changes.ts";
import { FleetStream } from "./event-stream.ts";
import { StoppedHistory } from "./history.ts";
import { FleetJournal } from "./journal.ts";
import { FLEET_LIMITS, type FleetLimits } from "./limits.ts";
import { FleetObserver } from "./observer.ts";
import { FleetRows, type SessionRow } from "./rows.ts";
import { realScheduler, type Scheduler } from "./scheduler.ts";
import { CatalogSnapshots } from "./snapshots.ts";
import type { TrackedStream } from "../server/streams.ts";

export interface FleetOptions {
  limits?: Partial<FleetLimits>;
  scheduler?: Scheduler;
}

export class FleetService {
  readonly epoch: string;
  readonly limits: FleetLimits;
  readonly rows: FleetRows;
  readonly journal: FleetJournal;
  readonly snapshots: CatalogSnapshots;
  readonly observer: FleetObserver;
  readonly history: StoppedHistory;
  private readonly streams = new Set<FleetStream>();
  /** What was last announced per row ("p:"/"s:" + id), without observed_at: unchanged rows are not re-sent. */
  private readonly announced = new Map<string, string>();
  private readonly stops: (() => void)[] = [];
  private stopped = false;

  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: FleetDeps,
    options: FleetOptions = {},
  ) {
    this.limits = { ...FLEET_LIMITS, ...options.limits };
    this.epoch = newId("fle", ctx.clock.now());
    // Tokens of an earlier gateway process still verify (same key), so they are told apart as another epoch.
    const key = createHmac("sha256", ctx.pepper).update("agent-gateway fleet tokens v1").digest();
    const fleetSigner = new TokenSigner(key, "fleet", this.epoch);
    this.rows = new FleetRows(ctx.db);
    this.journal = new FleetJournal(this.epoch, fleetSigner, ctx.clock, this.limits);
    this.snapshots = new CatalogSnapshots(this.epoch, fleetSigner, ctx.clock, this.limits);
    this.observer = new FleetObserver(this.rows, ctx.clock, this.limits, (id) => this.guard(() => this.announceSession(id)));
    this.history = new StoppedHistory(key, this.epoch, this.rows, ctx.clock, this.limits);
    const scheduler = options.scheduler ?? realScheduler;
    this.stops.push(
      ctx.fleetChanges.subscribe((change) => this.changed(change)),
      scheduler.every(this.limits.observeEveryMs, () => void this.tick()),
      scheduler.every(this.limits.heartbeatMs, () => this.heartbeat()),
    );
  }

  /** The first page of a new catalog snapshot (JSON text). */
  async catalog(pageEntries?: number): Promise<string> {
    const projects = await this.rows.projects();
    const sessions = (await this.rows.sessions()).map((row) => this.sessionView(row));
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

  /** One observer round, then stale flags re-checked (a row turning stale is announced). */
  async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.observer.round();
    } catch (error) {
      return this.failed(error);
    }
    await this.guard(async () => {
      for (const row of await this.rows.running()) await this.announceSession(row.id, row);
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

  /** The fleet row of a session: the database row plus the observer's last summary when running. */
  sessionView(row: SessionRow): FleetSession {
    const running = row.state === "running";
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
      stale: running && (!seen || this.ctx.clock.now() - seen.observedAt > this.limits.freshnessMs),
    };
  }

  private changed(change: FleetChange): Promise<void> {
    return this.guard(() => (change.kind === "project" ? this.announceProject(change.id) : this.announceSession(change.id)));
  }

  private async announceProject(id: string): Promise<void> {
    const project = await this.rows.project(id);
    if (!project) return this.announceRemoval(`p:${id}`, { type: "project_removed", project_id: id });
    const key = JSON.stringify(project);
    if (this.announced.get(`p:${id}`) === key) return;
    this.announced.set(`p:${id}`, key);
    this.journal.append({ type: "project_upserted", project });
  }

  private async announceSession(id: string, known?: SessionRow): Promise<void> {
    const row = known ?? (await this.rows.session(id));
    if (!row || row.state === "reaped") {
      this.observer.forget(id);
      return this.announceRemoval(`s:${id}`, { type: "session_removed", session_id: id });
    }
    if (row.state !== "running") this.observer.forget(id);
    const session = this.sessionView(row);
    const key = JSON.stringify({ ...session, observed_at: null });
    if (this.announced.get(`s:${id}`) === key) return;
    this.announced.set(`s:${id}`, key);
    this.journal.append({ type: "session_upserted", session });
  }

  private announceRemoval(key: string, event: { type: "project_removed"; project_id: string } | { type: "session_removed"; session_id: string }): void {
    if (this.announced.get(key) === "removed") return;
    this.announced.set(key, "removed");
    this.journal.append(event);
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
    if (error instanceof RangeError && /closed database/i.test(error.message)) return this.stop();
    this.ctx.logger.warn(`fleet observation: ${(error as Error).message}`);
  }
}

/** What fleet observation uses. The service is kept per deps object (the gateway's context). */
export type FleetDeps = Pick<GatewayContext, "clock" | "fleetChanges" | "logger" | "pepper" | "db">;

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

/** Replaces the context's fleet service (tests: fake scheduler, small limits). */
export function installFleet(ctx: FleetDeps, options: FleetOptions): FleetService {
  services.get(ctx)?.stop();
  const service = new FleetService(ctx, options);
  services.set(ctx, service);
  return service;
}
