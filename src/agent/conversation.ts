// The conversation a session holds: user messages, assistant messages (text, reasoning, tool calls)
// and the tool results that answer them. It is a fold of engine events (applyEvent), so a store that
// keeps the ordered events can always rebuild it.
import type { ReasoningReplay, ToolCallReplay, Usage } from "../providers/events.ts";

export type UserContentPart =
  | { type: "text"; text: string }
  | { type: "image"; media_type: string; data_base64: string };

export interface UserMessage {
  id: string;
  role: "user";
  /**
   * `prompt`: typed by the user; `reminder`: a system reminder the engine added; `continuation`: after a
   * lifetime cut, or a goal's automatic continuation; `handoff`: the plan carried into a new context;
   * `notification`: a notification (the message id is the notification's).
   */
  origin: "prompt" | "reminder" | "continuation" | "handoff" | "notification";
  content: UserContentPart[];
  created_at: number;
}

export type AssistantContentPart =
  | { id: string; type: "text"; text: string }
  | { id: string; type: "reasoning"; text: string; replay: ReasoningReplay | null }
  | { id: string; type: "tool_call"; call_id: string; name: string; arguments: Record<string, unknown>; replay?: ToolCallReplay };

export interface AssistantMessage {
  id: string;
  role: "assistant";
  model: string;
  content: AssistantContentPart[];
  usage: Usage | null;
  created_at: number;
}

export type ToolCallStatus = "completed" | "error" | "cancelled" | "denied";

export interface ToolResultEntry {
  call_id: string;
  name: string;
  status: ToolCallStatus;
  output: string;
  /** Images go to the model only when it supports vision (base64). */
  images?: { media_type: string; data_base64: string }[];
  metadata?: Record<string, unknown>;
}

export interface ToolResultsMessage {
  id: string;
  role: "tool_results";
  results: ToolResultEntry[];
  created_at: number;
}

export type ConversationEntry = UserMessage | AssistantMessage | ToolResultsMessage;

/**
 * Where the provider-visible context begins after a compaction or /clear; `entries` keeps the full
 * transcript for display and history (src/agent/compaction/).
 */
export interface ContextStart {
  /** Index in `entries` of the first entry the provider sees. */
  index: number;
  /** The compaction summary the context starts with; null after /clear. */
  summary: string | null;
  /** Entries from this index on were produced after the compaction: only their usage reflects the new context. */
  fresh: number;
}

export interface Conversation {
  entries: ConversationEntry[];
  /** Absent: the provider sees every entry. */
  context?: ContextStart;
}

export function emptyConversation(): Conversation {
  return { entries: [] };
}

/** Tool calls of the last assistant message that have no result yet (an interrupted history). */
export function unansweredCalls(conversation: Conversation): { call_id: string; name: string }[] {
  const answered = new Set<string>();
  for (const entry of conversation.entries) {
    if (entry.role === "tool_results") for (const r of entry.results) answered.add(r.call_id);
  }
  const open: { call_id: string; name: string }[] = [];
  for (const entry of conversation.entries) {
    if (entry.role !== "assistant") continue;
    for (const p of entry.content) if (p.type === "tool_call" && !answered.has(p.call_id)) open.push({ call_id: p.call_id, name: p.name });
  }
  return open;
}
