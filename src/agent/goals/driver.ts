// The goal driver: holds the session's goal (folded from goal_changed events, so a resumed session has
// it back), records every change as an event, and decides after each turn whether the session goes on by
// itself: only after a turn that ended normally (end_turn) with the goal still active, at most
// max_continuations_per_goal times per goal (0: never, while the goal and its tools stay).
import type { Clock } from "../../util/clock.ts";
import type { EngineEvent, InterrogativeAnswer } from "../events.ts";
import { wrapReminder, type Reminders } from "../reminders.ts";
import continuationText from "./continuation.txt" with { type: "text" };
import type { Goal, GoalChange } from "../../protocol/goal.ts";

export const DEFAULT_MAX_CONTINUATIONS_PER_GOAL = 50;

export interface GoalSettings {
  maxContinuations: number;
  autoAccept: boolean;
  /** daemon.goal_driver.plan_handoff_activate_goal (docs/decisions-engine.md). */
  handoffActivates: boolean;
}

export function goalSettings(driver: { max_continuations_per_goal?: number | null; agent_goal_auto_accept?: boolean | null; plan_handoff_activate_goal?: boolean | null } | null | undefined): GoalSettings {
  return {
    maxContinuations: driver?.max_continuations_per_goal ?? DEFAULT_MAX_CONTINUATIONS_PER_GOAL,
    autoAccept: driver?.agent_goal_auto_accept ?? false,
    handoffActivates: driver?.plan_handoff_activate_goal ?? false,
  };
}

/** What the driver needs of its session. */
export interface GoalHost {
  record(event: EngineEvent): void;
  /** Null when nobody can answer (headless run). */
  question(q: { kind: "goal_approval"; goal: string }, signal: AbortSignal): Promise<InterrogativeAnswer | null>;
}

export class GoalDriver {
  goal: Goal | null = null;
  private lastChange: GoalChange | null = null;
  /** The last turn ended normally: the session may go on by itself once. */
  private turnEnded = false;
  private host: GoalHost | null = null;

  constructor(
    readonly settings: GoalSettings,
    private readonly deps: { clock: Clock; newId(prefix: string): string; reminders: Reminders },
    initialEvents: Iterable<EngineEvent> = [],
  ) {
    for (const e of initialEvents) if (e.type === "goal_changed") this.apply(e);
  }

  bind(host: GoalHost): void {
    this.host = host;
  }

  /** Follows the session's events (goal changes are applied here, whoever recorded them). */
  apply(e: EngineEvent): void {
    if (e.type === "goal_changed") {
      this.goal = e.goal;
      this.lastChange = e.change;
    } else if (e.type === "turn_completed") this.turnEnded = e.stop_reason === "end_turn";
    else if (e.type === "turn_started") this.turnEnded = false;
  }

  /** The open goal (proposed or active), if any. */
  open(): Goal | null {
    return this.goal && (this.goal.status === "proposed" || this.goal.status === "active") ? this.goal : null;
  }

  change(change: GoalChange, goal: Goal): Goal {
    const next = { ...goal, updated_at: this.deps.clock.now() };
    this.requireHost().record({ type: "goal_changed", change, goal: next });
    return next;
  }

  create(objective: string, criteria: string | null, origin: Goal["origin"]): Goal {
    const now = this.deps.clock.now();
    return { id: this.deps.newId("goal"), objective, criteria, status: "proposed", progress: null, outcome: null, origin, continuations: 0, created_at: now, updated_at: now };
  }

  /** Activates a goal the user asked for (a plan handoff): no approval needed. */
  activate(objective: string, criteria: string | null, origin: Goal["origin"], id?: string): Goal {
    const created = this.create(objective, criteria, origin);
    const goal = this.change("activated", { ...created, id: id ?? created.id, status: "active" });
    this.deps.reminders.raise("goal_status", `${describeGoal(goal)}\nThis goal is active: work toward it; the session continues automatically until you call goal_complete.`);
    return goal;
  }

  /** Asks the user to approve a proposal; null when nobody can answer. */
  approval(goal: Goal, signal: AbortSignal): Promise<InterrogativeAnswer | null> {
    return this.requireHost().question({ kind: "goal_approval", goal: describeGoal(goal) }, signal);
  }

  /**
   * Called by the session when its queue is empty after a turn: the prompt of the next automatic turn,
   * or null. Counts the continuation on the goal (so the limit survives a resume).
   */
  continuation(): string | null {
    if (!this.turnEnded) return null;
    this.turnEnded = false;
    const goal = this.goal;
    if (!goal || goal.status !== "active" || this.settings.maxContinuations === 0) return null;
    if (goal.continuations >= this.settings.maxContinuations) {
      if (this.lastChange !== "limit_reached") {
        this.change("limit_reached", goal);
        this.requireHost().record({
          type: "notice",
          level: "info",
          message: `the goal "${goal.objective}" is still open after ${goal.continuations} automatic continuations (daemon.goal_driver.max_continuations_per_goal); send a message to go on`,
        });
      }
      return null;
    }
    const next = this.change("continued", { ...goal, continuations: goal.continuations + 1 });
    const status = `${describeGoal(next)}\nAutomatic continuation ${next.continuations} of ${this.settings.maxContinuations}.`;
    const reminder = this.deps.reminders.enabled("goal_status") ? `${wrapReminder("goal_status", status)}\n` : "";
    return `${reminder}${continuationText.trim()}`;
  }

  private requireHost(): GoalHost {
    if (!this.host) throw new Error("the goal driver is not bound to a session");
    return this.host;
  }
}

export function describeGoal(goal: Goal): string {
  const lines = [`Goal: ${goal.objective}`];
  if (goal.criteria) lines.push(`Done when: ${goal.criteria}`);
  if (goal.progress) lines.push(`Progress so far: ${goal.progress}`);
  return lines.join("\n");
}
