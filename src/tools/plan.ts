// `plan`: the model's checklist for the task at hand. Each call carries the whole list; the engine
// records it (plan_updated) and clients draw it. It changes nothing else, so it needs no permission and
// runs in every facet.
import { Type } from "@sinclair/typebox";
import { PLAN_TOOL_NAME } from "../config/builtin-names.ts";
import { PLAN_ITEM_STATUSES, planProgress, type PlanItem } from "../protocol/plan.ts";
import { defineTool, toolError } from "./tool.ts";
import description from "./plan.txt" with { type: "text" };

export const PLAN_ITEMS_MAX = 50;
export const PLAN_ITEM_TEXT_MAX = 300;

const ItemSchema = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: PLAN_ITEM_TEXT_MAX, description: "The step, short and concrete (e.g. \"Add the --verbose flag to cli.ts\")." }),
    status: Type.Union(PLAN_ITEM_STATUSES.map((s) => Type.Literal(s)), { description: "pending, in_progress (at most one item) or done." }),
  },
  { additionalProperties: false },
);

export function createPlanTool(onPlan: (items: PlanItem[]) => void) {
  return defineTool({
    name: PLAN_TOOL_NAME,
    description: description.trim(),
    inputSchema: Type.Object(
      { items: Type.Array(ItemSchema, { maxItems: PLAN_ITEMS_MAX, description: "The whole plan, in order; [] clears it." }) },
      { additionalProperties: false },
    ),
    async run(input) {
      const items = input.items.map((i) => ({ text: i.text.replace(/\s+/g, " ").trim(), status: i.status }));
      const blank = items.findIndex((i) => i.text === "");
      if (blank >= 0) return toolError(`Item ${blank + 1} has no text. Give every item a short description of its step.`);
      const working = items.filter((i) => i.status === "in_progress");
      if (working.length > 1) {
        return toolError(`${working.length} items are in_progress (${working.map((i) => `"${i.text}"`).join(", ")}); at most one may be. Mark the others pending or done and send the plan again.`);
      }
      onPlan(items);
      const progress = planProgress(items);
      if (!progress) return { output: "The plan is cleared." };
      const next = progress.done === progress.total ? " Every item is done." : progress.current ? "" : " No item is in progress: mark the next one in_progress when you start it.";
      return { output: `Plan updated: ${progress.text}.${next}` };
    },
  });
}
