// Reads projects and sessions from the gateway database as the fleet shows them. Session rows carry what
// the observer and stopped history need besides the public fields (port, session dir).
import { and, asc, eq, isNull, ne, or } from "drizzle-orm";
import type { GatewayDb } from "../db/open.ts";
import { first } from "../db/handle.ts";
import type { projects } from "../db/schema.ts";
import type { FleetProject } from "../../protocol/fleet-event.ts";
import { isoAt } from "../../util/clock.ts";
import { readPresence, type PresenceView } from "../hosts/presence.ts";

export interface SessionRow {
  id: string;
  projectId: string;
  launchMode: "project_direct" | "worktree_backed";
  state: "starting" | "running" | "stopped" | "failed" | "cleanup_pending" | "reaped";
  daemonEpoch: string | null;
  port: number | null;
  sessionDir: string | null;
  /** The host whose gateway supervises the session (null: rows from before replicas, supervised by any). */
  ownerHost: string | null;
  updatedAt: number;
}

export class FleetRows {
  constructor(
    private readonly db: GatewayDb,
    /** This gateway's host_name. */
    readonly host: string,
  ) {}

  /** The same reads on another handle (a transaction's). */
  on(db: GatewayDb): FleetRows {
    return new FleetRows(db, this.host);
  }

  /** Whether this host supervises (and so observes) the session. */
  owns(row: SessionRow): boolean {
    return row.ownerHost === null || row.ownerHost === this.host;
  }

  /** Which hosts are online at `now` (read on this handle: a transaction's reads stay in it). */
  presence(now: number): Promise<PresenceView> {
    return readPresence(this.db, this.host, now);
  }

  async project(id: string): Promise<FleetProject | null> {
    const { projects } = this.db.t;
    const row = await first(this.db.select().from(projects).where(eq(projects.id, id)));
    return row ? toProject(row) : null;
  }

  async projects(): Promise<FleetProject[]> {
    const { projects } = this.db.t;
    return (await this.db.select().from(projects).orderBy(asc(projects.id))).map(toProject);
  }

  async session(id: string): Promise<SessionRow | null> {
    const { sessions } = this.db.t;
    return (await first(this.db.select(this.sessionColumns()).from(sessions).where(eq(sessions.id, id)))) ?? null;
  }

  /** Every session that the fleet shows (a `reaped` row is about to be deleted and is not shown). */
  async sessions(): Promise<SessionRow[]> {
    const { sessions } = this.db.t;
    return this.db.select(this.sessionColumns()).from(sessions).where(ne(sessions.state, "reaped")).orderBy(asc(sessions.id));
  }

  /** Running sessions; `owned`: only those this host supervises. */
  async running(owned = false): Promise<SessionRow[]> {
    const { sessions } = this.db.t;
    const running = eq(sessions.state, "running");
    return this.db
      .select(this.sessionColumns())
      .from(sessions)
      .where(owned ? and(running, or(isNull(sessions.ownerHost), eq(sessions.ownerHost, this.host))) : running)
      .orderBy(asc(sessions.id));
  }

  private sessionColumns() {
    const { sessions: s } = this.db.t;
    return { id: s.id, projectId: s.projectId, launchMode: s.launchMode, state: s.state, daemonEpoch: s.daemonEpoch, port: s.port, sessionDir: s.sessionDir, ownerHost: s.ownerHost, updatedAt: s.updatedAt };
  }
}

function toProject(row: typeof projects.$inferSelect): FleetProject {
  return { project_id: row.id, path: row.path, config_name: row.configName, registered_at: isoAt(row.registeredAt), updated_at: isoAt(row.updatedAt) };
}
