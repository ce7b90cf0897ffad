// Host presence (docs/gateway-hosts.md, Presence): a host is online while any front holds its connection.
// Every PRESENCE_EVERY_MS each front pushes `hosts.online_until` to now + PRESENCE_TTL_MS for the hosts it
// holds, and for its own host (a front is the host named by its host_name, online while it runs); a host no
// front refreshes goes offline PRESENCE_TTL_MS after the last push. The timestamps are the fronts' clocks.
import { eq, sql } from "drizzle-orm";
import type { Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/handle.ts";
import { VERSION } from "../../version.ts";
import type { HostLinks } from "./links.ts";
import { realScheduler, type Scheduler } from "../fleet/scheduler.ts";

export const PRESENCE_EVERY_MS = 5_000;
export const PRESENCE_TTL_MS = 15_000;

/** Which hosts are online at one moment, read from the hosts table. */
export class PresenceView {
  constructor(
    private readonly until: ReadonlyMap<string, number>,
    private readonly ownHost: string,
    private readonly now: number,
  ) {}

  /** A null owner (a row from before owners were recorded) is supervised by any front: online. */
  online(host: string | null): boolean {
    if (host === null || host === this.ownHost) return true;
    return (this.until.get(host) ?? -Infinity) >= this.now;
  }
}

/** Reads every host's online_until (one small table) on `db`, a transaction's handle too. */
export async function readPresence(db: GatewayDb, ownHost: string, now: number): Promise<PresenceView> {
  const { hosts } = db.t;
  const rows = await db.select({ name: hosts.name, onlineUntil: hosts.onlineUntil }).from(hosts);
  return new PresenceView(new Map(rows.map((r) => [r.name, r.onlineUntil])), ownHost, now);
}

/** Whether one host is online now (a session record's `host_online`). */
export async function hostOnline(deps: PresenceDeps, host: string | null): Promise<boolean> {
  if (host === null || host === deps.config.host_name) return true;
  const { hosts } = deps.db.t;
  const [row] = await deps.db.select({ onlineUntil: hosts.onlineUntil }).from(hosts).where(eq(hosts.name, host));
  return row !== undefined && row.onlineUntil >= deps.clock.now();
}

export interface PresenceDeps {
  db: GatewayDb;
  clock: Clock;
  config: { host_name: string };
}

export interface HostSeen {
  agentVersion: string | null;
  protocol: number | null;
}

export class HostPresence {
  private stopTimer: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    private readonly deps: PresenceDeps & { logger: { warn(message: string): void } },
    private readonly links: HostLinks,
  ) {}

  /** Pushes presence now and every PRESENCE_EVERY_MS until stop(). */
  start(scheduler: Scheduler = realScheduler): void {
    this.stopTimer ??= scheduler.every(PRESENCE_EVERY_MS, () => void this.refresh());
    void this.refresh();
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  /**
   * One push for this front's own host and every host it holds. Pushes run one at a time; the promise
   * settles after a push that started after this call (so it sees the links held now).
   */
  refresh(): Promise<void> {
    if (this.queued) return this.queued;
    const start = (): Promise<void> => {
      const run = this.push().finally(() => {
        if (this.running === run) this.running = undefined;
      });
      this.running = run;
      return run;
    };
    if (!this.running) return start();
    this.queued = this.running.then(() => {
      this.queued = undefined;
      return start();
    });
    return this.queued;
  }

  /** Records a host as online at once (a connection was just accepted): its row is created on first connect. */
  async announce(hostName: string, seen: HostSeen): Promise<void> {
    await this.upsert(hostName, seen, this.deps.clock.now());
  }

  private async push(): Promise<void> {
    const now = this.deps.clock.now();
    try {
      // A front's own host has no connection, so no host protocol: protocol null tells fronts from joined hosts.
      await this.upsert(this.deps.config.host_name, { agentVersion: VERSION, protocol: null }, now);
      for (const { hostName, connection } of this.links.all()) await this.upsert(hostName, { agentVersion: connection.peer.agent_version, protocol: connection.protocol }, now);
    } catch (error) {
      // The next push tries again; until then the hosts stay online for what is left of their TTL.
      this.deps.logger.warn(`host presence: ${(error as Error).message}`);
    }
  }

  private async upsert(name: string, seen: HostSeen, now: number): Promise<void> {
    const { hosts } = this.deps.db.t;
    const onlineUntil = now + PRESENCE_TTL_MS;
    await this.deps.db
      .insert(hosts)
      .values({ name, firstSeenAt: now, lastSeenAt: now, onlineUntil, agentVersion: seen.agentVersion, protocol: seen.protocol })
      // Another front may hold the host too, with a clock slightly ahead: online_until never moves back.
      .onConflictDoUpdate({ target: hosts.name, set: { lastSeenAt: now, onlineUntil: sql`CASE WHEN ${hosts.onlineUntil} > ${onlineUntil} THEN ${hosts.onlineUntil} ELSE ${onlineUntil} END`, agentVersion: seen.agentVersion, protocol: seen.protocol } });
  }
}
