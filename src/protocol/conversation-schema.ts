// TypeBox mirrors of the engine's conversation types (src/agent/conversation.ts), for the records that
// carry them. test/protocol/sync-record.test.ts checks at compile time that every engine event fits.
import { Type } from "@sinclair/typebox";

export const UsageSchema = Type.Object({
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  cache_read_tokens: Type.Integer({ minimum: 0 }),
  cache_write_tokens: Type.Integer({ minimum: 0 }),
  reasoning_tokens: Type.Integer({ minimum: 0 }),
});

export const ImageSchema = Type.Object({ media_type: Type.String(), data_base64: Type.String() });

export const UserMessageSchema = Type.Object({
  id: Type.String(),
  role: Type.Literal("user"),
  origin: Type.Union((["prompt", "reminder", "continuation", "handoff", "notification"] as const).map((o) => Type.Literal(o))),
  content: Type.Array(
    Type.Union([
      Type.Object({ type: Type.Literal("text"), text: Type.String() }),
      Type.Object({ type: Type.Literal("image"), media_type: Type.String(), data_base64: Type.String() }),
    ]),
  ),
  created_at: Type.Number(),
});

const ReasoningReplaySchema = Type.Union([
  Type.Object({
    dialect: Type.Literal("a_messages"),
    block: Type.Union([
      Type.Object({ type: Type.Literal("thinking"), thinking: Type.String(), signature: Type.String() }),
      Type.Object({ type: Type.Literal("redacted_thinking"), data: Type.String() }),
    ]),
  }),
  Type.Object({
    dialect: Type.Literal("b_responses"),
    item: Type.Object({ type: Type.Literal("reasoning"), id: Type.String() }, { additionalProperties: true }),
  }),
]);

/** Provider data a tool call carries back (Gemini's thought signature); absent from other providers' calls. */
const ToolCallReplaySchema = Type.Object({
  dialect: Type.Literal("b_chat_completions"),
  model: Type.String(),
  extra_content: Type.Record(Type.String(), Type.Unknown()),
});

export const AssistantPartSchema = Type.Union([
  Type.Object({ id: Type.String(), type: Type.Literal("text"), text: Type.String() }),
  Type.Object({ id: Type.String(), type: Type.Literal("reasoning"), text: Type.String(), replay: Type.Union([ReasoningReplaySchema, Type.Null()]) }),
  Type.Object({
    id: Type.String(),
    type: Type.Literal("tool_call"),
    call_id: Type.String(),
    name: Type.String(),
    arguments: Type.Record(Type.String(), Type.Unknown()),
    replay: Type.Optional(ToolCallReplaySchema),
  }),
]);

export const PartKindSchema = Type.Union([Type.Literal("text"), Type.Literal("reasoning"), Type.Literal("tool_call")]);

export const ToolResultSchema = Type.Object({
  call_id: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal("completed"), Type.Literal("error"), Type.Literal("cancelled"), Type.Literal("denied")]),
  output: Type.String(),
  images: Type.Optional(Type.Array(ImageSchema)),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const StopReasonSchema = Type.Union(
  ["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "content_filter", "context_window_exceeded", "max_lifetime", "other"].map((r) => Type.Literal(r)),
);

export const TurnStopReasonSchema = Type.Union(
  ["end_turn", "max_tool_turns", "interrupted", "error", "exit_tool", "refusal", "max_tokens"].map((r) => Type.Literal(r)),
);

export const EngineErrorSchema = Type.Object({
  code: Type.String(),
  message: Type.String(),
  status: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});

export const QueuedInputSchema = Type.Object({ id: Type.String(), text: Type.String() });

export const InterrogativeSchema = Type.Union([
  Type.Object({
    id: Type.String(),
    kind: Type.Literal("permission"),
    turn_id: Type.String(),
    tool: Type.String(),
    arguments: Type.Record(Type.String(), Type.Unknown()),
    reason: Type.String(),
    subagent: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() }, { description: "Set when a subagent made the call: show its name." })),
  }),
  Type.Object({ id: Type.String(), kind: Type.Literal("goal_approval"), turn_id: Type.String(), goal: Type.String() }),
  Type.Object(
    {
      id: Type.String(),
      kind: Type.Literal("extension_approval"),
      name: Type.String(),
      version: Type.String(),
      description: Type.String(),
      origin: Type.Union([Type.Literal("global"), Type.Literal("project")]),
      path: Type.String({ description: "The extension's directory." }),
      capabilities: Type.Array(Type.String()),
      reason: Type.String({ description: "Why the question is asked (never approved, a new version, changed files)." }),
    },
    { description: "Load this extension (its code runs once approved)? Answers: approve or reject. Not tied to a turn." },
  ),
]);

export const InterrogativeAnswerSchema = Type.Union([
  Type.Object({ decision: Type.Literal("allow_once") }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("allow_always"), scope: Type.Union([Type.Literal("session"), Type.Literal("project")]) }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("deny"), message: Type.Optional(Type.String({ maxLength: 16384 })) }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("approve") }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("reject"), message: Type.Optional(Type.String({ maxLength: 16384 })) }, { additionalProperties: false }),
]);
