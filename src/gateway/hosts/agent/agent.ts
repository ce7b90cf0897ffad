// The host agent (`agent gateway host`, docs/gateway-hosts.md "Joining a host"): today's session supervisor
// on this machine, its database reached only through the fronts (RemoteSessionStore), the host API served
// to every front over its connection, and the daemons' "gateway" a loopback listener forwarding their
// services routes to a front. After the first connection it re-adopts the daemons its data dir's sessions
// record (the supervisor's reconciliation: a live one is adopted, never started again); after every
// connection it re-announces the daemons alive here, so the front records them.
import { randomBytes } from "node:crypto";
import { systemClock, type Clock } from "../../../util/clock.ts";
import { newId } from "../../../util/ids.ts";
import { StoppedHistory } from "../../fleet/history.ts";
import { FLEET_LIMITS } from "../../fleet/limits.ts";
import { logEvent } from "../../auth/failure-counts.ts";
import type { GatewayConfig } from "../../config/types.ts";
import type { Logger } from "../../context.ts";
import { isSameProcess } from "../../sessions/process-identity.ts";
import { SessionSupervisor } from "../../sessions/supervisor.ts";
import { UpstreamClient } from "../../sessions/upstream/upstream-client.ts";
import { OpenStreams } from "../../server/streams.ts";
import { Fronts } from "./fronts.ts";
import { hostApi } from "./host-api.ts";
import { RemoteSessionStore, type AnnouncedDaemon } from "./remote-store.ts";
import { ServicesListener } from "./services-listener.ts";

export interface HostAgentOptions {
  urls: string[];
  token: string;
  config: GatewayConfig;
  dataDir: string;
  fingerprints: string[];
  logger: Logger;
  clock?: Clock;
  /** How to run `agent daemon` (tests: the fake daemon). */
  daemonCommand?: string[];
}

export class HostAgent {
  readonly store: RemoteSessionStore;
  readonly fronts: Fronts;
  readonly supervisor: SessionSupervisor;
  private readonly services: ServicesListener;
  private readonly upstream = new UpstreamClient();
  /** Whether this start's reconciliation is done (it runs once, on the first connection that lets it finish). */
  private reconciled = false;
  private reconciling: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: HostAgentOptions) {
    const { config, logger } = options;
    const clock = options.clock ?? systemClock;
    let fronts: Fronts | undefined;
    // The store and the listener reach whichever front answers; the Fronts exist once the handler does.
    const transport = { fetch: (make: () => Request) => fronts!.fetch(make) };
    this.store = new RemoteSessionStore(transport);
    // No database and no pepper here: the store is the fronts, and a host agent claims no rows at start.
    this.supervisor = new SessionSupervisor({ clock, config, dataDir: options.dataDir, logger }, this.store);
    if (options.daemonCommand) this.supervisor.daemonCommand = options.daemonCommand;
    const api = hostApi({
      sessions: this.supervisor,
      // The fronts track their callers' streams (revocation ends them there); here they are not re-checked.
      proxy: { config, tls: false, upstream: this.upstream, streams: new OpenStreams(async () => true, { current: () => 0 }) },
      paths: { config, dataDir: options.dataDir },
      project: (id) => this.store.project(id),
      // Checkpoints live in this process: a key and an epoch of its own, so a restarted agent's are expired, never misread.
      history: new StoppedHistory(randomBytes(32), newId("hep", clock.now()), { session: async (id) => (await this.store.session(id)) ?? null }, clock, FLEET_LIMITS),
    });
    fronts = new Fronts({
      urls: options.urls,
      token: options.token,
      hostName: config.host_name,
      fingerprints: options.fingerprints,
      handler: (request) => this.serve(api, request),
      logger,
      onConnected: () => void this.connected(),
    });
    this.fronts = fronts;
    this.services = new ServicesListener(transport);
  }

  get hostName(): string {
    return this.options.config.host_name;
  }

  /** Listens for its daemons, then dials every front. */
  start(): string {
    const url = this.services.start();
    this.supervisor.setListener(url, null);
    this.fronts.start();
    return url;
  }

  /** Stops watching and disconnects; the daemons keep running (the next start re-adopts them). */
  stop(): void {
    this.stopped = true;
    this.fronts.stop();
    this.services.stop();
    this.supervisor.close();
    this.upstream.close();
  }

  /** Once per start: the sessions this host owns are re-adopted (live daemons) or settled, by this host. */
  private reconcile(): Promise<void> {
    if (this.reconciled) return Promise.resolve();
    this.reconciling ??= this.supervisor
      .reconcile()
      .then(() => void (this.reconciled = true))
      .finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  /**
   * The host API answers once reconciliation is done: a launch beside it could see its daemon, still
   * starting, judged by the reconciliation (and ended). Until it can finish (no front answers): 503.
   */
  private async serve(api: (request: Request) => Promise<Response>, request: Request): Promise<Response> {
    try {
      await this.reconcile();
    } catch (error) {
      return Response.json({ error: "host_not_ready", message: `host ${this.hostName} has not yet re-adopted its sessions: ${(error as Error).message}` }, { status: 503 });
    }
    return api(request);
  }

  private async connected(): Promise<void> {
    try {
      await this.reconcile();
      if (this.stopped) return;
      // A launch whose running (or failed) state was sent as a connection dropped may be recorded on no
      // front: settled first, so the announcement below names its daemon (docs/gateway-hosts.md).
      await this.supervisor.settleLaunches();
      const { live, gone } = await this.daemons();
      await this.store.announce(live);
      logEvent(this.options.logger, "info", "host.daemons_announced", { host: this.hostName, daemons: live.length });
      // A daemon that ended while no front could be told (its exit unrecorded) is settled now by the
      // on-demand check a GET runs, so the fronts do not show it running until someone asks.
      for (const id of gone) if (!this.stopped) await this.supervisor.get(id);
    } catch (error) {
      // Tried again on the next connection; the fronts keep the rows as they were.
      logEvent(this.options.logger, "warn", "host.announce_failed", { host: this.hostName, error: (error as Error).message });
    }
  }

  /**
   * The daemons of this host's running sessions that are alive on this machine (same pid and start time),
   * and the running sessions whose daemon is gone.
   */
  private async daemons(): Promise<{ live: AnnouncedDaemon[]; gone: string[] }> {
    const running = (await this.store.sessions()).filter((r) => r.state === "running");
    const alive = (r: (typeof running)[number]) => r.pid !== null && r.pidStartTicks !== null && r.port !== null && isSameProcess({ pid: r.pid, startTicks: r.pidStartTicks });
    return {
      live: running.filter(alive).map((r) => ({ sessionId: r.id, pid: r.pid!, startTicks: r.pidStartTicks!, port: r.port!, daemonEpoch: r.daemonEpoch })),
      gone: running.filter((r) => !alive(r)).map((r) => r.id),
    };
  }
}
