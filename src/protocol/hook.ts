// A hook run (records `hook_ran`): a command of the `hooks` config ran on an engine event (docs/hooks.md).
// The schema is the one definition; the engine uses its Static type.
import { type Static, Type } from "@sinclair/typebox";

/**
 * `allowed`: exit 0, nothing decided or an explicit allow; `blocked`: exit 2 or a deny/block decision;
 * `ask`: it asked for the person's approval; `error`: another exit code, or the command could not start;
 * `timeout`: killed after its time limit.
 */
export const HookOutcomeSchema = Type.Union((["allowed", "blocked", "ask", "error", "timeout"] as const).map((o) => Type.Literal(o)));
export type HookOutcome = Static<typeof HookOutcomeSchema>;

export const HookRunSchema = Type.Object({
  /** Claude Code's event name: PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop, SessionStart, PreCompact, Notification. */
  event: Type.String(),
  command: Type.String(),
  /** `global` or `project`: the config that set it. */
  origin: Type.Union([Type.Literal("global"), Type.Literal("project")]),
  /** The tool call it ran for (tool events). */
  call_id: Type.Optional(Type.String()),
  tool: Type.Optional(Type.String()),
  outcome: HookOutcomeSchema,
  /** null when killed or not started. */
  exit_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Number({ minimum: 0 }),
  /** What it said to the model or the person (stderr on a block or error, the reason of a decision), bounded and redacted. */
  message: Type.Optional(Type.String()),
});
export type HookRun = Static<typeof HookRunSchema>;
