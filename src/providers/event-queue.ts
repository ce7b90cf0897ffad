// The events one provider read decoded, waiting to be handed on. Consecutive deltas of one part (text or
// reasoning of the same index, argument text of the same tool call) are merged as they arrive, so the
// engine does its work per read instead of per token: a read of 240 one-word chunks is one text_delta
// of 240 words, not 240 events each crossing every layer up to the journal. Order and content are
// unchanged: only neighbours of the same part merge, and their text is joined in arrival order.
import type { StreamEvent } from "./events.ts";

export class EventQueue {
  readonly events: StreamEvent[] = [];
  /** The last event when it is a copy made by a merge (the queue's own, safe to extend in place). */
  private owned: StreamEvent | null = null;

  push(e: StreamEvent): void {
    const n = this.events.length;
    const last = n > 0 ? this.events[n - 1]! : null;
    const merged = last === null ? null : mergeDeltas(last, e, last === this.owned);
    if (merged !== null) {
      this.events[n - 1] = this.owned = merged;
      return;
    }
    this.events.push(e);
  }

  clear(): void {
    this.events.length = 0;
    this.owned = null;
  }
}

/** `next` appended to `last` when both are deltas of the same part; null otherwise. `owned`: `last` may be changed. */
function mergeDeltas(last: StreamEvent, next: StreamEvent, owned: boolean): StreamEvent | null {
  if (last.type !== next.type) return null;
  switch (next.type) {
    case "text_delta":
    case "reasoning_delta": {
      const prev = last as typeof next;
      if (prev.index !== next.index) return null;
      if (!owned) return { ...prev, text: prev.text + next.text };
      prev.text += next.text;
      return prev;
    }
    case "tool_call_delta": {
      const prev = last as typeof next;
      if (prev.index !== next.index || prev.id !== next.id) return null;
      if (!owned) return { ...prev, arguments_delta: prev.arguments_delta + next.arguments_delta };
      prev.arguments_delta += next.arguments_delta;
      return prev;
    }
    default:
      return null;
  }
}
