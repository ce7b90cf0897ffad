// The provider-visible context of a conversation: after a compaction it starts with the summary and the
// kept entries, after /clear with nothing. Both are events, so a resumed session and the daemon's store
// fold to the same context; the entries themselves are never removed (display and history keep them).
import type { Conversation, ConversationEntry } from "../conversation.ts";
import type { EngineEvent } from "../events.ts";
import summaryFrame from "./summary-message.txt" with { type: "text" };

type ContextEvent = Extract<EngineEvent, { type: "context_compacted" | "context_cleared" }>;

export function applyContextEvent(conversation: Conversation, event: ContextEvent): void {
  const entries = conversation.entries;
  const end = entries.length;
  if (event.type === "context_cleared") {
    conversation.context = { index: end, summary: null, fresh: end };
    return;
  }
  // A kept id that is not in the transcript (a damaged journal) keeps nothing rather than everything.
  const kept = event.kept_from_message_id === null ? -1 : entries.findIndex((e) => e.id === event.kept_from_message_id);
  conversation.context = { index: kept >= 0 ? kept : end, summary: event.summary, fresh: end };
}

/** The entries the provider sees, from the context start on. */
export function contextEntries(conversation: Conversation): ConversationEntry[] {
  const start = conversation.context?.index ?? 0;
  return start === 0 ? conversation.entries : conversation.entries.slice(start);
}

/** The user text that opens a compacted context. */
export function summaryMessageText(summary: string): string {
  return summaryFrame.replace("{{summary}}", () => summary.trim());
}
