// /rewind of the conversation: the entries from the chosen prompt on leave the conversation, and the
// model's context goes back to what it was before that prompt (a compaction or /clear made after it
// is undone with it). Both are folds of events, so a resumed session rewinds the same way.
import type { Conversation, ContextStart } from "../conversation.ts";
import type { EngineEvent } from "../events.ts";

/** The context before each context change, with the entry count at the change (kept beside the conversation, not in it). */
const earlier = new WeakMap<Conversation, { at: number; context: ContextStart | undefined }[]>();

/** Called before a compaction or /clear changes the context. */
export function noteContextChange(conversation: Conversation): void {
  const log = earlier.get(conversation) ?? [];
  log.push({ at: conversation.entries.length, context: conversation.context });
  earlier.set(conversation, log);
}

export function applyRewind(conversation: Conversation, event: Extract<EngineEvent, { type: "rewound" }>): void {
  if (event.mode === "code") return;
  const cut = conversation.entries.findIndex((e) => e.id === event.prompt_id);
  if (cut < 0) return;
  conversation.entries.length = cut;
  const log = earlier.get(conversation) ?? [];
  // A context change made once entries past the cut existed belongs to the rewound part.
  while (log.length > 0 && log[log.length - 1]!.at > cut) {
    const undone = log.pop()!;
    conversation.context = undone.context;
  }
  if (conversation.context === undefined) delete conversation.context;
}
