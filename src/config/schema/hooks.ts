// `hooks` (Claude Code's and Codex's structure: event -> [{matcher, hooks: [{type: command, command,
// timeout}]}]) and the user notifications (`notify`, `notify_events`). docs/hooks.md, docs/notifications.md.
import { Type } from "@sinclair/typebox";
import { Nullable } from "./common.ts";

/** The hook events, with Claude Code's names. */
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "PreCompact", "Notification"] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Hook time limit when a hook gives none (seconds), Claude Code's default. */
export const DEFAULT_HOOK_TIMEOUT_SECS = 60;

const HookCommand = Type.Object(
  {
    type: Type.Literal("command", { description: "Only `command` hooks exist." }),
    command: Type.String({ minLength: 1, description: "Run with `sh -c` in the project directory; the event arrives as JSON on stdin." }),
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600, description: `Seconds before the command is killed; default ${DEFAULT_HOOK_TIMEOUT_SECS}.` })),
  },
  { additionalProperties: false },
);

const HookMatcher = Type.Object(
  {
    matcher: Type.Optional(Type.String({ description: "Which runs: tool names for PreToolUse/PostToolUse (ours or Claude Code's: Bash, Edit, Write, Read...), the type for Notification, startup|resume for SessionStart, manual|auto for PreCompact; names joined by | match whole, anything else is a regular expression; `*` or empty: all. Ignored by the other events." })),
    hooks: Type.Array(HookCommand),
  },
  { additionalProperties: false },
);

const HookList = Type.Optional(Type.Array(HookMatcher));

export const HooksConfig = Type.Object(
  {
    PreToolUse: HookList,
    PostToolUse: HookList,
    UserPromptSubmit: HookList,
    Stop: HookList,
    SubagentStop: HookList,
    SessionStart: HookList,
    PreCompact: HookList,
    Notification: HookList,
  } satisfies Record<HookEventName, unknown>,
  { additionalProperties: false, description: "Commands run on engine events (docs/hooks.md). The global config's and a trusted project's both run." },
);

/** The events a notification is sent for (docs/notifications.md). */
export const NOTIFY_EVENTS = ["turn_completed", "question_waiting", "goal_finished"] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
export const NOTIFY_CHANNELS = ["program", "terminal"] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** Channels per event when `notify_events` says nothing: a finished turn is news for the program only (the person at the terminal sees it). */
export const DEFAULT_NOTIFY_CHANNELS: Readonly<Record<NotifyEvent, readonly NotifyChannel[]>> = {
  turn_completed: ["program"],
  question_waiting: ["program", "terminal"],
  goal_finished: ["program", "terminal"],
};

export const NotifyProgram = Nullable(
  Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    description: "A program and its arguments, run (no shell) with one more argument: the event as JSON (type, session_id, project, cwd, text). Codex's `notify`.",
  }),
);

const Channels = (e: NotifyEvent) =>
  Type.Optional(Nullable(Type.Array(Type.Union(NOTIFY_CHANNELS.map((c) => Type.Literal(c))), { uniqueItems: true, description: `Where a ${e} notification goes; default ${DEFAULT_NOTIFY_CHANNELS[e].join(", ") || "none"}; [] none.` })));

export const NotifyEvents = Type.Object(
  { turn_completed: Channels("turn_completed"), question_waiting: Channels("question_waiting"), goal_finished: Channels("goal_finished") } satisfies Record<NotifyEvent, unknown>,
  { additionalProperties: false, description: "Per event, the channels a notification goes to (docs/notifications.md)." },
);
