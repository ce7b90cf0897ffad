// A goal: an objective the agent keeps working on across turns. The model proposes one (the user approves
// it unless daemon.goal_driver.agent_goal_auto_accept), a plan handoff may activate one, and while it is
// active the session continues on its own after each turn, up to max_continuations_per_goal times.

export type GoalStatus = "proposed" | "active" | "completed" | "rejected";

export interface Goal {
  id: string;
  objective: string;
  /** How to tell the goal is reached; null when the proposal gave none. */
  criteria: string | null;
  status: GoalStatus;
  /** The latest progress note (goal_update). */
  progress: string | null;
  /** The completion summary, or the user's reason for a rejection. */
  outcome: string | null;
  origin: "model" | "plan_handoff";
  /** Automatic continuation turns run for this goal so far. */
  continuations: number;
  created_at: number;
  updated_at: number;
}

/** What happened to the goal; the event carries the whole goal after the change. */
export type GoalChange = "proposed" | "activated" | "rejected" | "updated" | "continued" | "completed" | "limit_reached";

export const GOAL_CHANGES: readonly GoalChange[] = ["proposed", "activated", "rejected", "updated", "continued", "completed", "limit_reached"];
