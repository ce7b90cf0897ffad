// The engine's event interface: everything a client must render or a store must persist. Events are
// plain JSON. The daemon turns each into a sync record; `agent exec --json` prints them one per line.
// The conversation is a fold of these events (applyEvent), so the ordered events are the source of truth.
import type { StopReason, Usage } from "../providers/events.ts";
import { applyContextEvent } from "./compaction/context.ts";
import type {
  AssistantContentPart,
  Conversation,
  ConversationEntry,
  ToolCallStatus,
  ToolResultEntry,
  ToolResultsMessage,
  UserMessage,
} from "./conversation.ts";
import type { Goal, GoalChange } from "./goals/types.ts";
import type { AgentNotification, NotificationDelivery } from "./notifications/types.ts";

/** Why a turn ended. `max_tool_turns`: the round-trip budget ran out; `interrupted`: the user stopped it. */
export type TurnStopReason = "end_turn" | "max_tool_turns" | "interrupted" | "error" | "exit_tool" | "refusal" | "max_tokens";

export interface EngineErrorInfo {
  /** Provider error kind (rate_limited, auth, ...) or an engine code (tool_loop, config, ...). */
  code: string;
  message: string;
  status?: number | null;
}

export interface QueuedInput {
  id: string;
  text: string;
}

/** Which subagent made a tool call (its permission ask surfaces in the root session). */
export interface SubagentRef {
  id: string;
  name: string;
}

/** How a subagent ended: `completed` (it reported), `failed` (an error), `cancelled` (the parent was interrupted). */
export type SubagentStatus = "completed" | "failed" | "cancelled";

/** A question the engine needs a person to answer before it can go on. */
export type Interrogative =
  | { id: string; kind: "permission"; turn_id: string; tool: string; arguments: Record<string, unknown>; reason: string; subagent?: SubagentRef }
  | { id: string; kind: "goal_approval"; turn_id: string; goal: string }
  /** Loading an extension (src/agent/extensions) needs the person's approval; it belongs to the session, not a turn. */
  | { id: string; kind: "extension_approval"; name: string; version: string; description: string; origin: "global" | "project"; path: string; capabilities: string[]; reason: string };

export type InterrogativeAnswer =
  | { decision: "allow_once" }
  /** Adds a rule for the rest of the session, or to the project's rule file. */
  | { decision: "allow_always"; scope: "session" | "project" }
  /** The message (optional) is fed back to the model. */
  | { decision: "deny"; message?: string }
  | { decision: "approve" }
  | { decision: "reject"; message?: string };

export type EngineEvent =
  /** A user message (typed prompt, reminder or continuation prompt) entered the conversation. */
  | { type: "user_message"; turn_id: string; message: UserMessage }
  | { type: "turn_started"; turn_id: string; model: string; facet: string }
  | { type: "assistant_message_started"; turn_id: string; message_id: string; model: string; created_at: number }
  /** Streaming: a part opened. `call_id`/`name` are set for tool calls. */
  | { type: "part_started"; message_id: string; part_id: string; kind: AssistantContentPart["type"]; call_id?: string; name?: string }
  /** Streaming text, reasoning, or raw tool-call argument JSON; may be coalesced. */
  | { type: "part_delta"; message_id: string; part_id: string; delta: string }
  /** The final state of a part; always emitted, whatever deltas came before. */
  | { type: "part_completed"; message_id: string; part: AssistantContentPart }
  /** A part dropped from the message: an unfinished one when its attempt broke, or a tool call of a broken
   *  attempt (the retry starts from the text kept so far, and the model may issue the call again). */
  | { type: "part_discarded"; message_id: string; part_id: string }
  /** `cost_usd`: the usage at the model's models.dev price; absent when the model has none. */
  | { type: "assistant_message_completed"; message_id: string; usage: Usage; stop_reason: StopReason | null; cost_usd?: number }
  /**
   * `call_id` is the provider's and may repeat within a session (some servers send `call_1` every time);
   * `part_id` is the call's tool_call part, unique in the session: clients key a call by it. Records of
   * older daemons lack it (then the newest call with that call_id is meant).
   */
  | { type: "tool_call_started"; turn_id: string; call_id: string; part_id?: string; name: string; arguments: Record<string, unknown> }
  /** A running tool's own progress report (an MCP server's progress notification), at most 4 a second per call. */
  | { type: "tool_call_progress"; turn_id: string; call_id: string; part_id?: string; name: string; progress: number; total?: number; message?: string }
  | {
      type: "tool_call_completed";
      turn_id: string;
      /** The call's tool_call part (see tool_call_started). */
      part_id?: string;
      /** The tool_results message this result belongs to (one per assistant message with calls). */
      results_message_id: string;
      result: ToolResultEntry;
      duration_ms: number;
      /** Milliseconds since the epoch when the call finished. */
      completed_at: number;
    }
  | { type: "retry"; turn_id: string; attempt: number; max_retries: number; delay_ms: number; status: number | null; code: string; reason: string }
  | { type: "turn_completed"; turn_id: string; stop_reason: TurnStopReason; usage: Usage; error?: EngineErrorInfo }
  | { type: "interrogative_opened"; interrogative: Interrogative }
  /** `answered` with the answer, or `withdrawn` when the turn was cancelled first. */
  | { type: "interrogative_closed"; id: string; outcome: "answered" | "withdrawn"; answer?: InterrogativeAnswer }
  /** The queue of inputs typed while a turn runs (after an enqueue, a dequeue, or when one starts). */
  | { type: "queue_changed"; queue: QueuedInput[] }
  /** A short status line from the model's `progress_update` tool. */
  | { type: "progress"; turn_id: string; text: string }
  /** Something the user should know that is not an error of the turn (a skipped symlink, a disabled required tool). */
  | { type: "notice"; level: "info" | "warning"; message: string }
  /** The `task` tool call `parent_tool_call_id` started a subagent; its own messages are not recorded, only these events. */
  | { type: "subagent_started"; subagent_id: string; name: string; parent_tool_call_id: string; model: string; description: string }
  /** A running subagent's activity: a tool call it started (text: the tool's name), its status line, a provider retry. */
  | { type: "subagent_progress"; subagent_id: string; name: string; activity: "tool_call" | "progress" | "retry"; text: string }
  /** No activity for subagent_stall_threshold_secs while it waited on the model: its provider stream is forced to reconnect. */
  | { type: "subagent_stalled"; subagent_id: string; name: string; idle_ms: number }
  /** A subagent ended; `report` (bounded) is what the parent receives as the tool result. */
  | { type: "subagent_completed"; subagent_id: string; name: string; status: SubagentStatus; report: string; usage: Usage; tool_turns: number; error?: EngineErrorInfo }
  /**
   * Compaction began: the context passed compaction_threshold (`threshold`), the provider refused a request
   * as too long (`overflow`), or the user ran /compact (`manual`).
   */
  | { type: "compaction_started"; turn_id: string | null; reason: "threshold" | "overflow" | "manual"; tokens_before: number; model: string }
  /**
   * The provider-visible context now starts with `summary`, then the entries from `kept_from_message_id` on
   * (null: none kept). The full transcript stays for display and history. Tokens are estimates.
   */
  | {
      type: "context_compacted";
      turn_id: string | null;
      summary: string;
      kept_from_message_id: string | null;
      tokens_before: number;
      tokens_after: number;
      model: string;
      /** Summary calls made (1 + retries). */
      attempts: number;
      usage: Usage;
    }
  /** Compaction gave up; the context is unchanged. */
  | { type: "compaction_failed"; turn_id: string | null; attempts: number; error: EngineErrorInfo }
  /** /clear: the provider-visible context starts empty from here; the transcript stays for display and history. */
  | { type: "context_cleared"; tokens_before: number }
  /** The active facet changed (`/facet`); `model` is the model in effect after the switch (a facet may pin one). */
  | { type: "facet_changed"; facet: string; previous: string; model: string }
  /** The user chose another model (`/model`): `name` or `name(level)`. */
  | { type: "model_changed"; model: string; previous: string }
  /** Leaving the plan facet with its plan; `new_context`: a context_cleared and the plan as a `handoff` user message follow. */
  | { type: "plan_handoff"; from: string; to: string; plan_message_id: string; new_context: boolean; goal_id: string | null }
  /** The session's goal changed; `goal` is its whole state after the change. */
  | { type: "goal_changed"; change: GoalChange; goal: Goal }
  /** A notification arrived; its user message (same id) follows at once (`drained`) or with the next turn (`queued`). */
  | { type: "notification"; notification: AgentNotification; delivery: NotificationDelivery };

export type EngineEventType = EngineEvent["type"];

/** Applies one event to the conversation (events that do not change it are ignored). */
export function applyEvent(conversation: Conversation, event: EngineEvent): void {
  const entries = conversation.entries;
  switch (event.type) {
    case "user_message":
      entries.push(event.message);
      return;
    case "assistant_message_started":
      entries.push({ id: event.message_id, role: "assistant", model: event.model, content: [], usage: null, created_at: event.created_at });
      return;
    case "part_completed": {
      const msg = findEntry(entries, event.message_id);
      if (msg?.role === "assistant") msg.content.push(event.part);
      return;
    }
    case "part_discarded": {
      const msg = findEntry(entries, event.message_id);
      if (msg?.role === "assistant") msg.content = msg.content.filter((p) => p.id !== event.part_id);
      return;
    }
    case "assistant_message_completed": {
      const msg = findEntry(entries, event.message_id);
      if (msg?.role === "assistant") msg.usage = event.usage;
      return;
    }
    case "tool_call_completed": {
      let results = findEntry(entries, event.results_message_id) as ToolResultsMessage | undefined;
      if (!results) {
        results = { id: event.results_message_id, role: "tool_results", results: [], created_at: event.completed_at };
        entries.push(results);
      }
      results.results = results.results.filter((r) => r.call_id !== event.result.call_id);
      results.results.push(event.result);
      sortByCallOrder(entries, results);
      return;
    }
    case "context_compacted":
    case "context_cleared":
      applyContextEvent(conversation, event);
      return;
    default:
      return;
  }
}

export function foldEvents(events: Iterable<EngineEvent>, into: Conversation = { entries: [] }): Conversation {
  for (const e of events) applyEvent(into, e);
  return into;
}

function findEntry(entries: ConversationEntry[], id: string): ConversationEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.id === id) return entries[i];
  return undefined;
}

/** Results go back in the order of the calls of the assistant message before them. */
function sortByCallOrder(entries: ConversationEntry[], results: ToolResultsMessage): void {
  const at = entries.indexOf(results);
  for (let i = at - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.role !== "assistant") continue;
    const order = new Map<string, number>();
    e.content.forEach((p, n) => p.type === "tool_call" && order.set(p.call_id, n));
    results.results.sort((a, b) => (order.get(a.call_id) ?? 0) - (order.get(b.call_id) ?? 0));
    return;
  }
}

export type { ToolCallStatus };
