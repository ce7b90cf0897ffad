// The engine's event interface: everything a client must render or a store must persist. Events are
// plain JSON. The daemon turns each into a sync record; `agent exec --json` prints them one per line.
// The conversation is a fold of these events (applyEvent), so the ordered events are the source of truth.
// The events are defined once, as schemas (src/protocol/sync-record.ts, EngineEventVariants); the types
// here are their Static types.
import { applyContextEvent } from "./compaction/context.ts";
import { applyRewind, noteContextChange } from "./checkpoints/conversation-rewind.ts";
import type { Conversation, ConversationEntry, ToolResultsMessage } from "./conversation.ts";
import type { EngineEvent } from "../protocol/sync-record.ts";

export type {
  EngineErrorInfo,
  Interrogative,
  InterrogativeAnswer,
  QueuedInput,
  SubagentRef,
  SubagentStatus,
  TurnStopReason,
} from "../protocol/conversation-schema.ts";
export type { EngineEvent, EngineEventType } from "../protocol/sync-record.ts";

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
      noteContextChange(conversation);
      applyContextEvent(conversation, event);
      return;
    case "rewound":
      applyRewind(conversation, event);
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
