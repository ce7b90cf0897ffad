// The conversation a session holds: user messages, assistant messages (text, reasoning, tool calls)
// and the tool results that answer them. It is a fold of engine events (applyEvent), so a store that
// keeps the ordered events can always rebuild it. Its entries' shapes are defined once, as schemas
// (src/protocol/conversation-schema.ts); the types here are their Static types.
import type { ConversationEntry } from "../protocol/conversation-schema.ts";

export type {
  AssistantContentPart,
  AssistantMessage,
  ConversationEntry,
  ToolCallStatus,
  ToolResultEntry,
  ToolResultsMessage,
  UserContentPart,
  UserMessage,
} from "../protocol/conversation-schema.ts";

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
