// The conversation's wire shapes, the one definition: the engine's types are these schemas' Static types
// (src/agent/conversation.ts, src/providers/events.ts re-export them) and the sync records embed them.
import { type Static, Type } from "@sinclair/typebox";

export const UsageSchema = Type.Object({
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  cache_read_tokens: Type.Integer({ minimum: 0 }),
  cache_write_tokens: Type.Integer({ minimum: 0 }),
  reasoning_tokens: Type.Integer({ minimum: 0 }),
});
export type Usage = Static<typeof UsageSchema>;

export const ImageSchema = Type.Object({ media_type: Type.String(), data_base64: Type.String() });

const UserContentPartSchema = Type.Union([
  Type.Object({ type: Type.Literal("text"), text: Type.String() }),
  Type.Object({ type: Type.Literal("image"), media_type: Type.String(), data_base64: Type.String() }),
]);
export type UserContentPart = Static<typeof UserContentPartSchema>;

/**
 * `origin` — `prompt`: typed by the user; `reminder`: a system reminder the engine added; `continuation`:
 * after a lifetime cut, or a goal's automatic continuation; `handoff`: the plan carried into a new context;
 * `notification`: a notification (the message id is the notification's).
 */
export const UserMessageSchema = Type.Object({
  id: Type.String(),
  role: Type.Literal("user"),
  origin: Type.Union((["prompt", "reminder", "continuation", "handoff", "notification"] as const).map((o) => Type.Literal(o))),
  content: Type.Array(UserContentPartSchema),
  created_at: Type.Number(),
});
export type UserMessage = Static<typeof UserMessageSchema>;

/**
 * What must be sent back verbatim next turn so the provider can continue its reasoning: Messages
 * thinking / redacted_thinking blocks (with signature), Responses reasoning items (with
 * encrypted_content), a router's Chat Completions reasoning_details. Opaque to the engine.
 */
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
    // The item's other fields travel verbatim: the type says so (the JSON Schema is the Object's own).
    item: Type.Unsafe<Record<string, unknown> & { type: "reasoning"; id: string }>(Type.Object({ type: Type.Literal("reasoning"), id: Type.String() }, { additionalProperties: true })),
  }),
  Type.Object({
    dialect: Type.Literal("b_chat_completions"),
    // The model that wrote them: OpenRouter's reasoning_details (signed Claude thinking, encrypted
    // reasoning) go back only to it.
    model: Type.String(),
    details: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  }),
]);
export type ReasoningReplay = Static<typeof ReasoningReplaySchema>;

/**
 * Provider data a tool call carries back: Gemini's Chat Completions endpoint attaches a thought signature
 * to function calls (`extra_content.google.thought_signature`) and refuses the next request without it.
 * Kept verbatim with the model that sent it; sent back only to that model. Absent from other providers' calls.
 */
const ToolCallReplaySchema = Type.Object({
  dialect: Type.Literal("b_chat_completions"),
  model: Type.String(),
  extra_content: Type.Record(Type.String(), Type.Unknown()),
});
export type ToolCallReplay = Static<typeof ToolCallReplaySchema>;

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
export type AssistantContentPart = Static<typeof AssistantPartSchema>;

export const PartKindSchema = Type.Union([Type.Literal("text"), Type.Literal("reasoning"), Type.Literal("tool_call")]);

const ToolCallStatusSchema = Type.Union([Type.Literal("completed"), Type.Literal("error"), Type.Literal("cancelled"), Type.Literal("denied")]);
export type ToolCallStatus = Static<typeof ToolCallStatusSchema>;

export const ToolResultSchema = Type.Object({
  call_id: Type.String(),
  name: Type.String(),
  status: ToolCallStatusSchema,
  output: Type.String(),
  /** Images go to the model only when it supports vision (base64). */
  images: Type.Optional(Type.Array(ImageSchema)),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type ToolResultEntry = Static<typeof ToolResultSchema>;

const AssistantMessageSchema = Type.Object({
  id: Type.String(),
  role: Type.Literal("assistant"),
  model: Type.String(),
  content: Type.Array(AssistantPartSchema),
  usage: Type.Union([UsageSchema, Type.Null()]),
  created_at: Type.Number(),
});
export type AssistantMessage = Static<typeof AssistantMessageSchema>;

const ToolResultsMessageSchema = Type.Object({
  id: Type.String(),
  role: Type.Literal("tool_results"),
  results: Type.Array(ToolResultSchema),
  created_at: Type.Number(),
});
export type ToolResultsMessage = Static<typeof ToolResultsMessageSchema>;

const ConversationEntrySchema = Type.Union([UserMessageSchema, AssistantMessageSchema, ToolResultsMessageSchema]);
export type ConversationEntry = Static<typeof ConversationEntrySchema>;

/** Why the model stopped, normalized across dialects; `max_lifetime`: cut by `provider_stream_max_lifetime_secs` (continue with a continuation prompt). */
export const StopReasonSchema = Type.Union(
  (["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "content_filter", "context_window_exceeded", "max_lifetime", "other"] as const).map((r) => Type.Literal(r)),
);
export type StopReason = Static<typeof StopReasonSchema>;

/** Why a turn ended. `max_tool_turns`: the round-trip budget ran out; `interrupted`: the user stopped it. */
export const TurnStopReasonSchema = Type.Union(
  (["end_turn", "max_tool_turns", "interrupted", "error", "exit_tool", "refusal", "max_tokens"] as const).map((r) => Type.Literal(r)),
);
export type TurnStopReason = Static<typeof TurnStopReasonSchema>;

/** `code`: a provider error kind (rate_limited, auth, ...) or an engine code (tool_loop, config, ...). */
export const EngineErrorSchema = Type.Object({
  code: Type.String(),
  message: Type.String(),
  status: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});
export type EngineErrorInfo = Static<typeof EngineErrorSchema>;

export const QueuedInputSchema = Type.Object({ id: Type.String(), text: Type.String() });
export type QueuedInput = Static<typeof QueuedInputSchema>;

/** Which subagent made a tool call (its permission ask surfaces in the root session). */
const SubagentRefSchema = Type.Object({ id: Type.String(), name: Type.String() }, { description: "Set when a subagent made the call: show its name." });
export type SubagentRef = Static<typeof SubagentRefSchema>;

/** How a subagent ended: `completed` (it reported), `failed` (an error), `cancelled` (the parent was interrupted). */
export const SubagentStatusSchema = Type.Union([Type.Literal("completed"), Type.Literal("failed"), Type.Literal("cancelled")]);
export type SubagentStatus = Static<typeof SubagentStatusSchema>;

/** A question the engine needs a person to answer before it can go on. */
export const InterrogativeSchema = Type.Union([
  Type.Object({
    id: Type.String(),
    kind: Type.Literal("permission"),
    turn_id: Type.String(),
    tool: Type.String(),
    arguments: Type.Record(Type.String(), Type.Unknown()),
    reason: Type.String(),
    suggested_rule: Type.Optional(Type.String({ description: "The allow rule(s) an 'allow always' answer writes (several joined by ', '); absent when no rule can allow the call." })),
    subagent: Type.Optional(SubagentRefSchema),
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
  Type.Object(
    {
      id: Type.String(),
      kind: Type.Literal("elicitation"),
      turn_id: Type.Optional(Type.String()),
      server: Type.String({ description: "The tool server that asks." }),
      message: Type.String(),
      requested_schema: Type.Record(Type.String(), Type.Unknown(), { description: "A flat JSON schema: string, number, integer and boolean fields, enums (single or multiple), defaults, `required`." }),
    },
    { description: "A tool server asks the user to fill in a form (MCP elicitation). Answers: accept (with content), decline or cancel." },
  ),
]);
export type Interrogative = Static<typeof InterrogativeSchema>;

/** `allow_always` adds a rule for the rest of the session, or to the project's rule file; a `deny` message is fed back to the model. */
export const InterrogativeAnswerSchema = Type.Union([
  Type.Object({ decision: Type.Literal("allow_once") }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("allow_always"), scope: Type.Union([Type.Literal("session"), Type.Literal("project")]) }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("deny"), message: Type.Optional(Type.String({ maxLength: 16384 })) }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("approve") }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("reject"), message: Type.Optional(Type.String({ maxLength: 16384 })) }, { additionalProperties: false }),
  Type.Object(
    { decision: Type.Literal("accept"), content: Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 16384 }), Type.Number(), Type.Boolean(), Type.Array(Type.String({ maxLength: 16384 }), { maxItems: 256 })])) },
    { additionalProperties: false },
  ),
  Type.Object({ decision: Type.Literal("decline") }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal("cancel") }, { additionalProperties: false }),
]);
export type InterrogativeAnswer = Static<typeof InterrogativeAnswerSchema>;
