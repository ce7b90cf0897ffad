// The model's goal tools: goal_propose (the user approves, unless agent_goal_auto_accept), goal_update
// and goal_complete. They change only the session's goal, so they need no permission; a read-only facet
// (plan) does not offer them: the plan handoff is how a plan becomes a goal.
import { Type } from "@sinclair/typebox";
import { defineTool, toolError, type Tool } from "../../tools/tool.ts";
import { describeGoal, type GoalDriver } from "./driver.ts";
import completeDescription from "./goal-complete.txt" with { type: "text" };
import proposeDescription from "./goal-propose.txt" with { type: "text" };
import updateDescription from "./goal-update.txt" with { type: "text" };

export const GOAL_TEXT_MAX = 4000;

const text = (description: string) => Type.String({ minLength: 1, maxLength: GOAL_TEXT_MAX, description });

export function createGoalTools(driver: GoalDriver): Tool[] {
  const propose = defineTool({
    name: "goal_propose",
    description: proposeDescription.trim(),
    inputSchema: Type.Object(
      { objective: text("What is to be achieved, in one or two sentences."), criteria: Type.Optional(text("How to tell it is done (tests pass, a file exists...).")) },
      { additionalProperties: false },
    ),
    async run(input, _ctx, signal) {
      const open = driver.open();
      if (open) return toolError(`A goal is already ${open.status}: "${open.objective}". Finish it with goal_complete (or record progress with goal_update) before proposing another.`);
      const proposed = driver.change("proposed", driver.create(input.objective.trim(), input.criteria?.trim() || null, "model"));
      if (driver.settings.autoAccept) {
        const active = driver.change("activated", { ...proposed, status: "active" });
        return { output: `The goal is active (goals are accepted automatically here).\n${describeGoal(active)}\n${keepGoing(driver)}` };
      }
      let answer;
      try {
        answer = await driver.approval(proposed, signal);
      } catch (error) {
        driver.change("rejected", { ...proposed, status: "rejected", outcome: "withdrawn: the turn was cancelled before the user answered" });
        throw error;
      }
      if (answer === null) {
        driver.change("rejected", { ...proposed, status: "rejected", outcome: "nobody can approve a goal in a headless run" });
        return toolError("The goal was not started: this run is headless, so nobody can approve it. Do the work in this turn instead, or tell the user to set daemon.goal_driver.agent_goal_auto_accept.");
      }
      if (answer.decision === "approve") {
        const active = driver.change("activated", { ...proposed, status: "active" });
        return { output: `The user approved the goal; it is active.\n${describeGoal(active)}\n${keepGoing(driver)}` };
      }
      const why = answer.decision === "reject" && answer.message ? answer.message : null;
      driver.change("rejected", { ...proposed, status: "rejected", outcome: why });
      return { output: `The user rejected the goal${why ? `: ${why}` : "."} Do not pursue it as a goal; answer the user or ask what they want instead.` };
    },
  });

  const update = defineTool({
    name: "goal_update",
    description: updateDescription.trim(),
    inputSchema: Type.Object(
      { progress: text("What is done and what comes next."), objective: Type.Optional(text("The restated objective, when the user changed it.")) },
      { additionalProperties: false },
    ),
    async run(input) {
      const goal = driver.goal;
      if (!goal || goal.status !== "active") return toolError(noActiveGoal(driver));
      driver.change("updated", { ...goal, progress: input.progress.trim(), objective: input.objective?.trim() || goal.objective });
      return { output: "Progress recorded." };
    },
  });

  const complete = defineTool({
    name: "goal_complete",
    description: completeDescription.trim(),
    inputSchema: Type.Object({ summary: text("The outcome: what was achieved.") }, { additionalProperties: false }),
    async run(input) {
      const goal = driver.goal;
      if (!goal || goal.status !== "active") return toolError(noActiveGoal(driver));
      driver.change("completed", { ...goal, status: "completed", outcome: input.summary.trim() });
      return { output: "The goal is complete; the session no longer continues automatically. Tell the user the outcome." };
    },
  });
  return [propose, update, complete];
}

function keepGoing(driver: GoalDriver): string {
  const max = driver.settings.maxContinuations;
  return max > 0
    ? `Work toward it now. After each of your answers the session continues automatically (at most ${max} times) until you call goal_complete.`
    : "Work toward it now; call goal_complete when it is achieved (the session does not continue automatically here).";
}

function noActiveGoal(driver: GoalDriver): string {
  const goal = driver.goal;
  if (goal?.status === "proposed") return `The goal "${goal.objective}" is still waiting for the user's approval.`;
  return "There is no active goal. Propose one with goal_propose first.";
}
