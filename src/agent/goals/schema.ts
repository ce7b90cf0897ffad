// The wire shape of a goal (records `goal_changed`); test/protocol/schemas.test.ts checks at compile time
// that the engine's Goal fits it.
import { Type } from "@sinclair/typebox";
import { GOAL_CHANGES } from "./types.ts";

export const GoalSchema = Type.Object({
  id: Type.String(),
  objective: Type.String(),
  criteria: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union((["proposed", "active", "completed", "rejected"] as const).map((s) => Type.Literal(s))),
  progress: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Union([Type.String(), Type.Null()]),
  origin: Type.Union([Type.Literal("model"), Type.Literal("plan_handoff")]),
  continuations: Type.Integer({ minimum: 0 }),
  created_at: Type.Number(),
  updated_at: Type.Number(),
});

export const GoalChangeSchema = Type.Union(GOAL_CHANGES.map((c) => Type.Literal(c)));
