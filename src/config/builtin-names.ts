// Names of built-in things that config values refer to. The config validates against these lists and
// the engine implements exactly these; keep them in one place so the two cannot drift.
import { BUILTIN_TOOL_TRAITS, toolAliases, toolNames } from "../protocol/tool-traits.ts";

/** Built-in system reminders (stable names; `daemon.system_reminders.disabled` removes them). */
export const SYSTEM_REMINDER_NAMES = [
  "context_usage",
  "facet_switched",
  "file_changed",
  "goal_status",
  "image_unsupported",
  "instructions",
  "max_tool_turns",
  "tool_choice",
] as const;

/** Well-formed reminder names: lowercase words joined by underscores. */
export const SYSTEM_REMINDER_NAME_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** The built-in tools, in the order of their traits (src/protocol/tool-traits.ts). */
export const BUILTIN_TOOL_NAMES: readonly string[] = toolNames(BUILTIN_TOOL_TRAITS);

/**
 * Tools that stand in for another under the name a model family is trained on: `apply_patch` is the patch
 * form of `edit` for OpenAI's models. A list naming `edit` (a facet's or subagent's `tools`, a permission
 * rule) covers it too.
 */
export const TOOL_ALIASES: Readonly<Record<string, string>> = toolAliases(BUILTIN_TOOL_TRAITS);

/** Whether a list of tool names admits `tool`, by its name or the name it stands in for. */
export function toolListed(list: readonly string[] | ReadonlySet<string>, tool: string): boolean {
  const has = (n: string) => ("has" in list ? list.has(n) : list.includes(n));
  const alias = TOOL_ALIASES[tool];
  return has(tool) || (alias !== undefined && has(alias));
}

/** Tools the loop cannot work without; listing them in `disabled_tools` is ignored with a warning. */
export const REQUIRED_TOOL_NAMES = ["exit_tool", "progress_update", "tool_search"] as const;

/** The goal tools (src/agent/goals): they change only the session's goal, so they never need permission. */
export const GOAL_TOOL_NAMES = ["goal_propose", "goal_update", "goal_complete"] as const;

/** The model's checklist (src/tools/plan.ts): it changes only what the user is shown, so it needs no permission. */
export const PLAN_TOOL_NAME = "plan";

/** The delegation tool: starts a subagent (src/agent/subagents). */
export const DELEGATION_TOOL_NAME = "task";

export const BUILTIN_FACETS = ["execute", "plan"] as const;
export const BUILTIN_SUBAGENTS = ["explore", "general"] as const;

/** Shipped prompt references accepted as a PromptDefinition `source`. */
export const AGENT_REFERENCES: readonly string[] = [
  ...BUILTIN_FACETS.map((f) => `agent://facets/${f}`),
  ...BUILTIN_SUBAGENTS.map((s) => `agent://subagents/${s}`),
];
