// SyncRecordV1: the ordered records of the daemon's journal, as clients receive them. Every engine event
// is a record with the event's own fields (so clients and the store fold the same data); the daemon adds
// session_state, operation_result and daemon_catalog_changed. Streaming deltas may be coalesced; the
// final state of a part is always a part_completed record.
import { type Static, type TProperties, Type } from "@sinclair/typebox";
import {
  AssistantPartSchema,
  EngineErrorSchema,
  InterrogativeAnswerSchema,
  InterrogativeSchema,
  PartKindSchema,
  QueuedInputSchema,
  StopReasonSchema,
  SubagentStatusSchema,
  ToolResultSchema,
  TurnStopReasonSchema,
  UsageSchema,
  UserMessageSchema,
} from "./conversation-schema.ts";
import { GoalChangeSchema, GoalSchema } from "./goal.ts";
import { HookRunSchema } from "./hook.ts";
import { NotificationDeliverySchema, NotificationSchema } from "./notification.ts";
import { PlanItemSchema } from "./plan.ts";
import { CheckpointFileSchema, RewindModeSchema, SettledFileSchema } from "./checkpoint.ts";
import { ClientOperationResultV1 } from "./operation.ts";

const S = Type.String();

function variant<T extends string, P extends TProperties>(type: T, description: string, fields: P) {
  return Type.Object({ type: Type.Literal(type), ...fields }, { description });
}

/**
 * The engine's events, the one definition of them: EngineEvent (src/agent/events.ts) is their Static type,
 * and each is a record body as it is.
 */
export const EngineEventVariants = [
  variant("user_message", "A user message (typed prompt, reminder, continuation) entered the conversation.", { turn_id: S, message: UserMessageSchema }),
  variant("turn_started", "A turn began.", { turn_id: S, model: S, facet: S }),
  variant("assistant_message_started", "An assistant message began streaming.", { turn_id: S, message_id: S, model: S, created_at: Type.Number() }),
  variant("part_started", "A content part opened; call_id/name are set for tool calls.", {
    message_id: S,
    part_id: S,
    kind: PartKindSchema,
    call_id: Type.Optional(S),
    name: Type.Optional(S),
  }),
  variant("part_delta", "Streaming text, reasoning or tool-call argument JSON; consecutive deltas of one part may be coalesced.", { message_id: S, part_id: S, delta: S }),
  variant("part_completed", "The final state of a part (always sent).", { message_id: S, part: AssistantPartSchema }),
  // An unfinished part when its attempt broke, or a tool call of a broken attempt: the retry starts from the
  // text kept so far, and the model may issue the call again.
  variant("part_discarded", "A part dropped from its message (an attempt broke and is retried).", { message_id: S, part_id: S }),
  variant("assistant_message_completed", "An assistant message ended.", {
    message_id: S,
    usage: UsageSchema,
    stop_reason: Type.Union([StopReasonSchema, Type.Null()]),
    cost_usd: Type.Optional(Type.Number({ minimum: 0, description: "The usage priced at the model's models.dev rates (USD); absent for models without a price and from older daemons." })),
  }),
  variant("tool_call_started", "A tool began running.", {
    turn_id: S,
    call_id: Type.String({ description: "The provider's call id: it may repeat within a session (some servers reuse `call_1`)." }),
    part_id: Type.Optional(Type.String({ description: "The call's tool_call part id, unique in the session: key a call by it. Absent from records of older daemons." })),
    name: S,
    arguments: Type.Record(S, Type.Unknown()),
  }),
  variant("tool_call_progress", "A running tool reported progress (an MCP server's progress notification); at most 4 a second per call.", {
    turn_id: S,
    call_id: S,
    part_id: Type.Optional(Type.String({ description: "The call's tool_call part id (see tool_call_started)." })),
    name: S,
    progress: Type.Number(),
    total: Type.Optional(Type.Number()),
    message: Type.Optional(S),
  }),
  variant("tool_call_completed", "A tool finished; the result joins the tool_results message.", {
    turn_id: S,
    part_id: Type.Optional(Type.String({ description: "The call's tool_call part id (see tool_call_started)." })),
    /** The tool_results message this result belongs to (one per assistant message with calls). */
    results_message_id: S,
    result: ToolResultSchema,
    duration_ms: Type.Number({ minimum: 0 }),
    /** Milliseconds since the epoch when the call finished. */
    completed_at: Type.Number(),
  }),
  variant("retry", "The provider call failed and will be retried.", {
    turn_id: S,
    attempt: Type.Integer(),
    max_retries: Type.Integer(),
    delay_ms: Type.Number(),
    status: Type.Union([Type.Integer(), Type.Null()]),
    code: S,
    reason: S,
  }),
  variant("turn_completed", "A turn ended.", { turn_id: S, stop_reason: TurnStopReasonSchema, usage: UsageSchema, error: Type.Optional(EngineErrorSchema) }),
  variant("interrogative_opened", "A question (permission ask, goal approval, extension approval) awaits an answer.", { interrogative: InterrogativeSchema }),
  variant("interrogative_closed", "A question was answered or withdrawn.", {
    id: S,
    outcome: Type.Union([Type.Literal("answered"), Type.Literal("withdrawn")]),
    answer: Type.Optional(InterrogativeAnswerSchema),
  }),
  variant("queue_changed", "The queue of inputs typed while a turn runs.", { queue: Type.Array(QueuedInputSchema) }),
  variant("progress", "A short status line from the model.", { turn_id: S, text: S }),
  variant("plan_updated", "The model's plan (its checklist, from the plan tool) changed; `items` is the whole plan, empty when the model cleared it.", {
    turn_id: S,
    items: Type.Array(PlanItemSchema),
  }),
  variant("notice", "Something the user should know that is not an error of the turn.", {
    level: Type.Union([Type.Literal("info"), Type.Literal("warning")]),
    message: S,
  }),
  variant("compaction_started", "Compaction began: the context passed compaction_threshold, the provider refused a request as too long (overflow), or the user ran /compact.", {
    turn_id: Type.Union([S, Type.Null()]),
    reason: Type.Union([Type.Literal("threshold"), Type.Literal("overflow"), Type.Literal("manual")]),
    tokens_before: Type.Integer({ minimum: 0 }),
    model: S,
  }),
  variant("context_compacted", "The model-visible context now starts with the summary, then the entries from kept_from_message_id on; the transcript is unchanged.", {
    turn_id: Type.Union([S, Type.Null()]),
    summary: S,
    kept_from_message_id: Type.Union([S, Type.Null()]),
    tokens_before: Type.Integer({ minimum: 0 }),
    tokens_after: Type.Integer({ minimum: 0 }),
    model: S,
    /** Summary calls made (1 + retries); the token counts are estimates. */
    attempts: Type.Integer({ minimum: 1 }),
    usage: UsageSchema,
  }),
  variant("compaction_failed", "Compaction gave up; the context is unchanged.", { turn_id: Type.Union([S, Type.Null()]), attempts: Type.Integer({ minimum: 0 }), error: EngineErrorSchema }),
  variant("context_cleared", "/clear: the model-visible context starts empty from here; the transcript is unchanged.", { tokens_before: Type.Integer({ minimum: 0 }) }),
  variant("facet_changed", "The active facet changed; `model` is the model in effect after the switch (a facet may pin one). Session state: the catalog revision does not change.", {
    facet: S,
    previous: S,
    model: S,
  }),
  variant("model_changed", "The user chose another model (`name` or `name(level)`). Session state: the catalog revision does not change.", { model: S, previous: S }),
  variant("plan_handoff", "The plan facet handed its plan to another facet; with new_context a context_cleared and the plan as a handoff user message follow.", {
    from: S,
    to: S,
    plan_message_id: S,
    new_context: Type.Boolean(),
    goal_id: Type.Union([S, Type.Null()]),
  }),
  variant("goal_changed", "The session's goal changed; `goal` is its whole state after the change.", { change: GoalChangeSchema, goal: GoalSchema }),
  variant("notification", "A notification arrived; its user message (same id) follows at once (drained) or with the next turn (queued).", {
    notification: NotificationSchema,
    delivery: NotificationDeliverySchema,
  }),
  variant("checkpoint_saved", "A restore point: what files held before this turn's first change to them (content copies under the session dir), saved before a file tool ran, or after a command whose changes the project snapshot saw.", {
    turn_id: S,
    /** The id of the user prompt (message) that started the turn. */
    prompt_id: S,
    call_id: S,
    files: Type.Array(CheckpointFileSchema),
  }),
  variant("checkpoint_settled", "The turn ended: the state the agent left each file of its restore points in (a later difference is someone else's change).", {
    turn_id: S,
    files: Type.Array(SettledFileSchema),
  }),
  variant("rewound", "/undo or /rewind: files went back to their restore points (code), and/or the conversation was cut before the prompt prompt_id (conversation).", {
    action: Type.Union([Type.Literal("undo"), Type.Literal("rewind")]),
    prompt_id: S,
    mode: RewindModeSchema,
    /** The turns whose file changes were reverted. */
    turn_ids: Type.Array(S),
    restored: Type.Array(S, { description: "Absolute paths put back to their restore point." }),
    kept: Type.Array(S, { description: "Absolute paths someone changed since the turn, kept as they are (--keep)." }),
  }),
  variant("hook_ran", "A command of the hooks config ran on an engine event (docs/hooks.md); turn_id is empty outside a turn.", { turn_id: S, hook: HookRunSchema }),
  variant("subagent_started", "The task tool call parent_tool_call_id started a subagent (its own messages are not recorded).", {
    subagent_id: S,
    name: S,
    parent_tool_call_id: S,
    model: S,
    description: S,
  }),
  variant("subagent_progress", "A running subagent's activity: a tool call it started (text: the tool name), its status line, a provider retry.", {
    subagent_id: S,
    name: S,
    activity: Type.Union([Type.Literal("tool_call"), Type.Literal("progress"), Type.Literal("retry")]),
    text: S,
  }),
  variant("subagent_stalled", "A subagent showed no activity for subagent_stall_threshold_secs; its provider stream is forced to reconnect.", {
    subagent_id: S,
    name: S,
    idle_ms: Type.Number({ minimum: 0 }),
  }),
  variant("subagent_completed", "A subagent ended; report (bounded) is the parent's tool result.", {
    subagent_id: S,
    name: S,
    status: SubagentStatusSchema,
    report: S,
    usage: UsageSchema,
    tool_turns: Type.Integer({ minimum: 0 }),
    error: Type.Optional(EngineErrorSchema),
  }),
] as const;

const EngineEventSchema = Type.Union([...EngineEventVariants]);
export type EngineEvent = Static<typeof EngineEventSchema>;
export type EngineEventType = EngineEvent["type"];

/** The bodies of the records: the engine's events, then the daemon's own. */
export const RecordBodyVariants = [
  ...EngineEventVariants,
  variant("session_state", "The session's lifecycle changed (a stopped, finalized session serves its history).", {
    state: Type.Union([Type.Literal("running"), Type.Literal("stopping"), Type.Literal("stopped")]),
    finalized: Type.Boolean(),
    reason: Type.Optional(Type.Literal("idle", { description: "On a stop: the daemon stopped the session itself after its idle time (daemon.idle_exit_secs); the next attach resumes it." })),
  }),
  variant("operation_result", "A correlated command's stored result changed status.", { result: ClientOperationResultV1 }),
  variant("daemon_catalog_changed", "The daemon catalog published a new revision: refetch GET /daemon-state.", { catalog_revision: S }),
] as const;

const RecordHeader = {
  version: Type.Literal(1),
  seq: Type.String({ description: "Position in the journal (a counter, as a string); cursors are separate opaque tokens." }),
  at: Type.Integer({ description: "Milliseconds since the epoch when the record was committed." }),
};

export const SyncRecordV1 = Type.Union(
  RecordBodyVariants.map((v) => Type.Composite([Type.Object(RecordHeader), v], { description: v.description })),
  { title: "SyncRecordV1" },
);
export type SyncRecord = Static<typeof SyncRecordV1>;

const RecordBodySchema = Type.Union([...RecordBodyVariants]);
export type SyncRecordBody = Static<typeof RecordBodySchema>;

/**
 * The data of one SSE `records` frame (`event: records`, `id: <cursor after the last record>`,
 * `data: {"records":[...]}`): at most 256 records and 2 MiB, except that a single record larger than
 * 2 MiB travels alone. Its records refer to SyncRecordV1 (the root of the exported document).
 */
export const RecordsFrameSchema = Type.Object(
  { records: Type.Array(Type.Unsafe<SyncRecord>({ $ref: "#" }), { minItems: 1, maxItems: 256, description: "Consecutive records, in journal order." }) },
  { title: "RecordsFrameV1", description: "The data of an SSE `event: records` frame of GET /events; the frame's `id:` is the cursor after its last record (send it as Last-Event-ID or `after` to resume)." },
);

/** The data of an SSE `reset` event: the stream ends; discard the cursor and fetch a new snapshot. */
export const ResetFrameSchema = Type.Object(
  { code: Type.Literal("reset_required"), message: Type.String() },
  { title: "ResetFrameV1", description: "The data of an SSE `event: reset` of GET /events: the stream cannot continue safely and ends; discard the cursor, fetch GET /sync and replay from its cursor." },
);

/**
 * SyncRecordV1 at the root (what `agent print sync-event-schema` always exported), with the SSE frames of
 * GET /events beside it: `#/$defs/RecordsFrameV1` and `#/$defs/ResetFrameV1`.
 */
export function syncRecordJsonSchema(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...JSON.parse(JSON.stringify(SyncRecordV1)),
    $defs: { RecordsFrameV1: JSON.parse(JSON.stringify(RecordsFrameSchema)), ResetFrameV1: JSON.parse(JSON.stringify(ResetFrameSchema)) },
  };
}
