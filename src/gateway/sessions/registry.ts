// The session rows and their transition history. Every state change is a compare-and-set inside one
// transaction (the row moves only from the state the caller saw), appends a history entry, and signals
// fleet observation after the commit.
import { and, asc, desc, eq } from "drizzle-orm";
import { isoAt, type Clock } from "../../util/clock.ts";
import type { GatewayDb } from "../db/open.ts";
import { sessions, sessionTransitions } from "../db/schema.ts";
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
    private readonly onTransition: (change: { id: string; from: SessionState; to: SessionState; trigger: TransitionTrigger; detail?: string; patch: SessionPatch }) => void = () => {},
  ) {}

  get(id: string): SessionRow | undefined {
    return this.db.select().from(sessions).where(eq(sessions.id, id)).get();
  }

  list(): SessionRow[] {
    return this.db.select().from(sessions).orderBy(desc(sessions.createdAt), desc(sessions.id)).all();
  }

  insert(row: { id: string; projectId: string; launchMode: LaunchMode; sessionDir: string; worktreePath: string | null; worktreeBranch: string | null }): SessionRow {
    const now = this.clock.now();
    this.db.transaction((tx) => {
      tx.insert(sessions).values({ ...row, state: "starting", createdAt: now, updatedAt: now }).run();
      tx.insert(sessionTransitions).values({ sessionId: row.id, fromState: null, toState: "starting", reason: "create", at: now }).run();
    });
    this.fleet.touch({ kind: "session", id: row.id });
    return this.get(row.id)!;
  }

  /** Fields that are not the state (process identity, port, epoch); no history entry. */
  update(id: string, patch: SessionPatch): void {
    this.db.update(sessions).set({ ...patch, updatedAt: this.clock.now() }).where(eq(sessions.id, id)).run();
    this.fleet.touch({ kind: "session", id });
  }

  /**
   * Moves the session from `from` (one of) to `to`, with `patch` applied in the same transaction. Returns
   * false (and changes nothing) when the row is gone or no longer in one of the expected states.
   */
  transition(id: string, from: readonly SessionState[], to: SessionState, trigger: TransitionTrigger, detail?: string, patch: SessionPatch = {}): boolean {
    const now = this.clock.now();
    let previous: SessionState | undefined;
    const moved = this.db.transaction((tx) => {
      const row = tx.select({ state: sessions.state }).from(sessions).where(eq(sessions.id, id)).get();
      if (!row || !from.includes(row.state)) return false;
      previous = row.state;
      assertTransition(row.state, to);
      tx.update(sessions).set({ ...patch, state: to, updatedAt: now }).where(and(eq(sessions.id, id), eq(sessions.state, row.state))).run();
      tx.insert(sessionTransitions).values({ sessionId: id, fromState: row.state, toState: to, reason: reasonText(trigger, detail), at: now }).run();
      return true;
    });
    if (moved) {
      this.fleet.touch({ kind: "session", id });
      this.onTransition({ id, from: previous!, to, trigger, detail, patch });
    }
    return moved;
  }

  remove(id: string): void {
    this.db.delete(sessions).where(eq(sessions.id, id)).run();
    this.fleet.touch({ kind: "session", id });
  }

  view(row: SessionRow): SessionView {
    const history = this.db.select().from(sessionTransitions).where(eq(sessionTransitions.sessionId, row.id)).orderBy(asc(sessionTransitions.id)).all();
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
      service_credentials: this.credentials.list(row.id),
    };
  }
}
