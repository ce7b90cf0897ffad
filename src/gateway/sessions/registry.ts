// The session rows and their transition history. Every state change is a compare-and-set inside one
// transaction (the row moves only from the state the caller saw), appends a history entry, and signals
// fleet observation after the commit.
import { and, asc, desc, eq } from "drizzle-orm";
import { isoAt, type Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { first } from "../db/handle.ts";
import type { sessions } from "../db/schema.ts";
import type { FleetChanges } from "../fleet/changes.ts";
import { assertTransition, type LaunchMode, type SessionState, type TransitionTrigger } from "./transitions.ts";
import type { ServiceCredentials, ServiceCredentialView } from "./credentials.ts";

export type SessionRow = typeof sessions.$inferSelect;
export type SessionPatch = Partial<Omit<SessionRow, "id" | "projectId" | "launchMode" | "state" | "createdAt">>;

export interface TransitionView {
  from: SessionState | null;
  to: SessionState;
  trigger: string;
  detail: string | null;
  at: string;
}

/** The session record on the wire (gateway.md, Session record). */
export interface SessionView {
  id: string;
  project_id: string;
  launch_mode: LaunchMode;
  state: SessionState;
  created_at: string;
  updated_at: string;
  pid: number | null;
  port: number | null;
  daemon_epoch: string | null;
  owner_host: string | null;
  /** Whether the owner host is online (hosts/presence.ts): false while no front holds its connection. */
  host_online: boolean;
  worktree: { path: string; branch: string | null } | null;
  transitions: TransitionView[];
  service_credentials: ServiceCredentialView[];
}

/** Stored reason text: `<trigger>` or `<trigger>: <detail>`. */
function reasonText(trigger: TransitionTrigger, detail?: string): string {
  return detail ? `${trigger}: ${detail.slice(0, 500)}` : trigger;
}

export class SessionRegistry {
  constructor(
    private readonly db: GatewayDb,
    private readonly clock: Clock,
    private readonly fleet: FleetChanges,
    private readonly credentials: ServiceCredentials,
    /** Told of each state change, after it is committed (the supervisor logs it). */
    private readonly onTransition: (change: { id: string; from: SessionState; to: SessionState; trigger: TransitionTrigger; detail?: string; patch: SessionPatch; pid: number | null }) => void = () => {},
    /** Whether a session's owner host is online (default: one host, which is this one and runs). */
    private readonly hostOnline: (host: string | null) => Promise<boolean> = async () => true,
  ) {}

  async get(id: string): Promise<SessionRow | undefined> {
    return (await first(this.db.select().from(this.db.t.sessions).where(eq(this.db.t.sessions.id, id))));
  }

  async list(): Promise<SessionRow[]> {
    return (await this.db.select().from(this.db.t.sessions).orderBy(desc(this.db.t.sessions.createdAt), desc(this.db.t.sessions.id)));
  }

  /** `ownerHost`: the host whose gateway supervises the session (createSession: this one; ownership.ts). */
  async insert(row: { id: string; projectId: string; launchMode: LaunchMode; sessionDir: string; worktreePath: string | null; worktreeBranch: string | null; ownerHost?: string }): Promise<SessionRow> {
    const now = this.clock.now();
    await this.db.tx(async (tx) => {
      await tx.insert(this.db.t.sessions).values({ ...row, state: "starting", createdAt: now, updatedAt: now });
      await tx.insert(this.db.t.sessionTransitions).values({ sessionId: row.id, fromState: null, toState: "starting", reason: "create", at: now });
    });
    await this.fleet.touch({ kind: "session", id: row.id });
    return (await this.get(row.id))!;
  }

  /** Fields that are not the state (process identity, port, epoch); no history entry. */
  async update(id: string, patch: SessionPatch): Promise<void> {
    await this.db.update(this.db.t.sessions).set({ ...patch, updatedAt: this.clock.now() }).where(eq(this.db.t.sessions.id, id));
    await this.fleet.touch({ kind: "session", id });
  }

  /**
   * Moves the session from `from` (one of) to `to`, with `patch` applied in the same transaction. Returns
   * false (and changes nothing) when the row is gone or no longer in one of the expected states.
   * `committed` runs once the move is committed, before it is announced to fleet observation.
   */
  async transition(id: string, from: readonly SessionState[], to: SessionState, trigger: TransitionTrigger, detail?: string, patch: SessionPatch = {}, committed?: () => void): Promise<boolean> {
    const now = this.clock.now();
    let previous: SessionState | undefined;
    let pid: number | null = null;
    const moved = await this.db.tx(async (tx) => {
      const row = await first(tx.select({ state: this.db.t.sessions.state, pid: this.db.t.sessions.pid }).from(this.db.t.sessions).where(eq(this.db.t.sessions.id, id)));
      if (!row || !from.includes(row.state)) return false;
      previous = row.state;
      pid = patch.pid !== undefined ? patch.pid : row.pid;
      assertTransition(row.state, to);
      await tx.update(this.db.t.sessions).set({ ...patch, state: to, updatedAt: now }).where(and(eq(this.db.t.sessions.id, id), eq(this.db.t.sessions.state, row.state)));
      await tx.insert(this.db.t.sessionTransitions).values({ sessionId: id, fromState: row.state, toState: to, reason: reasonText(trigger, detail), at: now });
      return true;
    });
    if (moved) {
      committed?.();
      await this.fleet.touch({ kind: "session", id });
      this.onTransition({ id, from: previous!, to, trigger, detail, patch, pid });
    }
    return moved;
  }

  async remove(id: string): Promise<void> {
    await this.db.delete(this.db.t.sessions).where(eq(this.db.t.sessions.id, id));
    await this.fleet.touch({ kind: "session", id });
  }

  async view(row: SessionRow): Promise<SessionView> {
    const history = (await this.db.select().from(this.db.t.sessionTransitions).where(eq(this.db.t.sessionTransitions.sessionId, row.id)).orderBy(asc(this.db.t.sessionTransitions.id)));
    return {
      id: row.id,
      project_id: row.projectId,
      launch_mode: row.launchMode,
      state: row.state,
      created_at: isoAt(row.createdAt),
      updated_at: isoAt(row.updatedAt),
      pid: row.pid,
      port: row.port,
      daemon_epoch: row.daemonEpoch,
      owner_host: row.ownerHost,
      host_online: await this.hostOnline(row.ownerHost),
      worktree: row.worktreePath ? { path: row.worktreePath, branch: row.worktreeBranch } : null,
      transitions: history.map((t) => {
        const colon = t.reason?.indexOf(": ") ?? -1;
        return {
          from: t.fromState as SessionState | null,
          to: t.toState as SessionState,
          trigger: colon >= 0 ? t.reason!.slice(0, colon) : (t.reason ?? ""),
          detail: colon >= 0 ? t.reason!.slice(colon + 2) : null,
          at: isoAt(t.at),
        };
      }),
      service_credentials: await this.credentials.list(row.id),
    };
  }
}
