// The model's plan: a checklist it keeps with the `plan` tool (records `plan_updated`, each carrying the
// whole list), and the one-line progress clients show for it (the fleet summary, the status line).
import { type Static, Type } from "@sinclair/typebox";

export const PLAN_ITEM_STATUSES = ["pending", "in_progress", "done"] as const;

export const PlanItemSchema = Type.Object({
  text: Type.String({ description: "One step, in the model's words." }),
  status: Type.Union(PLAN_ITEM_STATUSES.map((s) => Type.Literal(s)), { description: "At most one item of a plan is in_progress." }),
});
export type PlanItem = Static<typeof PlanItemSchema>;

export const PlanProgressSchema = Type.Object(
  {
    done: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 1 }),
    current: Type.Union([Type.String(), Type.Null()], { description: "The item in progress, if any." }),
    text: Type.String({ description: 'For display: "3/7 done: <item in progress>".' }),
  },
  { description: "How far the session's plan is (the newest plan_updated record); absent when it has none." },
);
export type PlanProgress = Static<typeof PlanProgressSchema>;

/** The `plan` field of a summary: present only while the session has a plan. */
export function withPlan(items: readonly PlanItem[]): { plan?: PlanProgress } {
  const progress = planProgress(items);
  return progress ? { plan: progress } : {};
}

/** The progress of a plan, or null for an empty one (no plan). */
export function planProgress(items: readonly PlanItem[]): PlanProgress | null {
  if (items.length === 0) return null;
  const done = items.filter((i) => i.status === "done").length;
  const current = items.find((i) => i.status === "in_progress")?.text ?? null;
  return { done, total: items.length, current, text: `${done}/${items.length} done${current ? `: ${current}` : ""}` };
}
