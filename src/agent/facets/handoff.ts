// The plan handoff: leaving the read-only `plan` facet for one that can act carries the plan along. The
// plan is the last answer the plan facet wrote. In the same context the model is reminded to carry it
// out; with `--new-context` the model's context starts over from the plan alone (refused when
// daemon.disable_context_clear is on). A goal is activated from the plan when
// daemon.goal_driver.plan_handoff_activate_goal is on (default off; docs/decisions-engine.md), or when
// the command asks for it (`--goal`; `--no-goal` skips it whatever the config says).
import { clearContext } from "../compaction/clear.ts";
import type { Conversation } from "../conversation.ts";
import type { EngineEvent } from "../events.ts";
import type { GoalDriver } from "../goals/driver.ts";
import type { AgentRuntime } from "../runtime.ts";
import type { SessionModes } from "./modes.ts";

export const PLAN_FACET = "plan";

export interface HandoffOptions {
  newContext: boolean;
  /** null: the config decides (plan_handoff_activate_goal). */
  goal: boolean | null;
}

export class HandoffError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HandoffError";
  }
}

export interface HandoffResult {
  plan_message_id: string;
  new_context: boolean;
  goal_id: string | null;
}

/** The text of the plan facet's last answer, or null when it has not answered. */
export function findPlan(modes: SessionModes, conversation: Conversation, from: string): { id: string; text: string } | null {
  const last = modes.fold.state.lastAnswer;
  if (!last || last.facet !== from) return null;
  const entry = conversation.entries.find((e) => e.id === last.message_id);
  if (entry?.role !== "assistant") return null;
  const text = entry.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n").trim();
  return text ? { id: entry.id, text } : null;
}

/** Refuses what cannot be done before anything changes (so a refused handoff leaves the facet as it was). */
export function checkHandoff(opts: HandoffOptions, runtime: AgentRuntime, plan: { id: string } | null, goals: GoalDriver | undefined): void {
  const asked = opts.newContext || opts.goal === true;
  if (asked && !plan) throw new HandoffError("there is no plan to hand over: the plan facet has not answered yet");
  if (opts.newContext && runtime.compaction.clearDisabled) throw new HandoffError("a new context is disabled by daemon.disable_context_clear in the config; switch without --new-context");
  if (opts.goal === true && !goals) throw new HandoffError("this session has no goals");
  if (opts.goal === true && goals?.open()) throw new HandoffError(`a goal is already open ("${goals.open()!.objective}"); switch without --goal`);
}

/** Runs after the facet switch: records plan_handoff, then the fresh context and the plan message, and the goal. */
export function handOver(
  ctx: { runtime: AgentRuntime; conversation: Conversation; record(e: EngineEvent): void; goals: GoalDriver | undefined; clock: { now(): number } },
  switched: { previous: string; facet: string },
  plan: { id: string; text: string },
  opts: HandoffOptions,
): HandoffResult {
  const { runtime, goals } = ctx;
  const wantGoal = goals !== undefined && !goals.open() && (opts.goal ?? goals.settings.handoffActivates);
  const goalId = wantGoal ? runtime.newId("goal") : null;
  ctx.record({ type: "plan_handoff", from: switched.previous, to: switched.facet, plan_message_id: plan.id, new_context: opts.newContext, goal_id: goalId });
  if (opts.newContext) {
    clearContext(runtime, ctx.conversation);
    const text = `Carry out this plan, made earlier in the ${switched.previous} facet:\n\n${plan.text}`;
    ctx.record({ type: "user_message", turn_id: "", message: { id: runtime.newId("msg"), role: "user", origin: "handoff", content: [{ type: "text", text }], created_at: ctx.clock.now() } });
  } else {
    runtime.reminders.raise(
      "facet_switched",
      `The session switched from the ${switched.previous} facet to the ${switched.facet} facet. Carry out the plan you wrote above; follow the current system prompt. Every tool offered may run now, as the permission rules allow.`,
    );
  }
  if (goalId && goals) goals.activate(planObjective(plan.text), null, "plan_handoff", goalId);
  return { plan_message_id: plan.id, new_context: opts.newContext, goal_id: goalId };
}

/** A goal's objective from a plan: its first line, without markdown heading marks, at most 200 characters. */
export function planObjective(plan: string): string {
  const first = plan.split("\n").map((l) => l.replace(/^#+\s*/, "").trim()).find((l) => l !== "") ?? "the plan";
  const line = first.length > 200 ? `${first.slice(0, 197)}...` : first;
  return `Carry out the plan: ${line}`;
}
