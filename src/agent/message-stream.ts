// Turns the normalized provider stream of one model call (possibly several attempts) into part events of
// one assistant message, and keeps the parts that survive: finished parts, plus text and reasoning
// streamed so far when an attempt breaks (a retry or an interrupt). Unfinished tool calls are discarded.
import type { StreamEvent, StopReason, Usage } from "../providers/events.ts";
import { emptyUsage } from "../providers/events.ts";
import type { AssistantContentPart } from "./conversation.ts";
import type { EngineEvent } from "./events.ts";

type Open =
  | { kind: "text" | "reasoning"; part_id: string; text: string }
  | { kind: "tool_call"; part_id: string; call_id: string; name: string };

export class MessageStream {
  readonly parts: AssistantContentPart[] = [];
  usage: Usage = emptyUsage();
  stopReason: StopReason | null = null;
  private open = new Map<number, Open>();
  /** Usage of attempts that ended in a retry: they were billed too. */
  private earlierUsage: Usage = emptyUsage();
  /** Where the current attempt's parts start in `parts`. */
  private attemptStart = 0;

  constructor(
    private readonly messageId: string,
    private readonly newPartId: () => string,
    private readonly emit: (e: EngineEvent) => void,
  ) {}

  push(e: StreamEvent): void {
    switch (e.type) {
      case "text_delta":
      case "reasoning_delta": {
        const kind = e.type === "text_delta" ? "text" : "reasoning";
        let o = this.open.get(e.index);
        if (!o || o.kind !== kind) {
          o = { kind, part_id: this.newPartId(), text: "" };
          this.open.set(e.index, o);
          this.emit({ type: "part_started", message_id: this.messageId, part_id: o.part_id, kind });
        }
        o.text += e.text;
        this.emit({ type: "part_delta", message_id: this.messageId, part_id: o.part_id, delta: e.text });
        return;
      }
      case "text_done":
        this.finish(e.index, (id) => ({ id, type: "text", text: e.text }));
        return;
      case "reasoning_done":
        this.finish(e.index, (id) => ({ id, type: "reasoning", text: e.text, replay: e.replay }));
        return;
      case "tool_call_start": {
        const part_id = this.newPartId();
        this.open.set(e.index, { kind: "tool_call", part_id, call_id: e.id, name: e.name });
        this.emit({ type: "part_started", message_id: this.messageId, part_id, kind: "tool_call", call_id: e.id, name: e.name });
        return;
      }
      case "tool_call_delta": {
        const o = this.open.get(e.index);
        if (o?.kind === "tool_call") this.emit({ type: "part_delta", message_id: this.messageId, part_id: o.part_id, delta: e.arguments_delta });
        return;
      }
      case "tool_call_done":
        this.finish(e.index, (id) => ({ id, type: "tool_call", call_id: e.id, name: e.name, arguments: e.arguments, ...(e.replay ? { replay: e.replay } : {}) }));
        return;
      case "usage":
        this.usage = addUsage(this.earlierUsage, e.usage);
        return;
      case "done":
        this.usage = addUsage(this.earlierUsage, e.usage);
        this.stopReason = e.stop_reason;
        return;
      case "retry":
        // The attempt broke: keep what streamed so far, and start the next attempt's indexes afresh.
        this.closeOpen();
        this.dropAttemptToolCalls();
        this.earlierUsage = this.usage;
        this.attemptStart = this.parts.length;
        return;
      default:
        return;
    }
  }

  /** Ends the stream early (interrupt, final failure): partial text is kept, open tool calls discarded. */
  closeOpen(): void {
    for (const o of this.open.values()) {
      if (o.kind === "tool_call" || o.text.length === 0) {
        this.emit({ type: "part_discarded", message_id: this.messageId, part_id: o.part_id });
      } else {
        const part: AssistantContentPart =
          o.kind === "text" ? { id: o.part_id, type: "text", text: o.text } : { id: o.part_id, type: "reasoning", text: o.text, replay: null };
        this.parts.push(part);
        this.emit({ type: "part_completed", message_id: this.messageId, part });
      }
    }
    this.open.clear();
  }

  private dropAttemptToolCalls(): void {
    const kept = this.parts.slice(0, this.attemptStart);
    for (const p of this.parts.slice(this.attemptStart)) {
      if (p.type === "tool_call") this.emit({ type: "part_discarded", message_id: this.messageId, part_id: p.id });
      else kept.push(p);
    }
    this.parts.length = 0;
    this.parts.push(...kept);
  }

  toolCalls(): Extract<AssistantContentPart, { type: "tool_call" }>[] {
    return this.parts.filter((p): p is Extract<AssistantContentPart, { type: "tool_call" }> => p.type === "tool_call");
  }

  private finish(index: number, make: (partId: string) => AssistantContentPart): void {
    const o = this.open.get(index);
    this.open.delete(index);
    const part = make(o?.part_id ?? this.newPartId());
    if (!o) {
      this.emit({ type: "part_started", message_id: this.messageId, part_id: part.id, kind: part.type, ...callFields(part) });
    }
    this.parts.push(part);
    this.emit({ type: "part_completed", message_id: this.messageId, part });
  }
}

function callFields(part: AssistantContentPart): { call_id?: string; name?: string } {
  return part.type === "tool_call" ? { call_id: part.call_id, name: part.name } : {};
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
  };
}
