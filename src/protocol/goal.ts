// A goal: an objective the agent keeps working on across turns (records `goal_changed`). The model proposes
// one (the user approves it unless daemon.goal_driver.agent_goal_auto_accept), a plan handoff may activate
// one, and while it is active the session continues on its own after each turn, up to
// max_continuations_per_goal times. The schema is the one definition; the engine uses its Static type.
import { type Static, Type } from "@sinclair/typebox";

export const GoalSchema = Type.Object({
  id: Type.String(),
  objective: Type.String(),
  /** How to tell the goal is reached; null when the proposal gave none. */
  criteria: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union((["proposed", "active", "completed", "rejected"] as const).map((s) => Type.Literal(s))),
  /** The latest progress note (goal_update). */
  progress: Type.Union([Type.String(), Type.Null()]),
  /** The completion summary, or the user's reason for a rejection. */
  outcome: Type.Union([Type.String(), Type.Null()]),
  origin: Type.Union([Type.Literal("model"), Type.Literal("plan_handoff")]),
  /** Automatic continuation turns run for this goal so far. */
  continuations: Type.Integer({ minimum: 0 }),
  created_at: Type.Number(),
  updated_at: Type.Number(),
});
export type Goal = Static<typeof GoalSchema>;

/** What happened to the goal; the event carries the whole goal after the change. */
const GOAL_CHANGES = ["proposed", "activated", "rejected", "updated", "continued", "completed", "limit_reached"] as const;
export const GoalChangeSchema = Type.Union(GOAL_CHANGES.map((c) => Type.Literal(c)));
export type GoalChange = Static<typeof GoalChangeSchema>;
