// Folds normalized events into an assistant message; its snapshot is the partial kept across a
// stall or truncation (finished parts plus text/reasoning so far; unfinished tool calls are dropped).
import type { AssembledResponse, AssistantPart, StreamEvent, Usage } from "./events.ts";
import { emptyUsage } from "./events.ts";

type Open = { type: "text" | "reasoning"; text: string } | { type: "tool_call"; id: string; name: string };

export class ResponseAssembler {
  private readonly done = new Map<number, AssistantPart>();
  private readonly open = new Map<number, Open>();
  private id: string | null = null;
  private model: string | null = null;
  private usage: Usage = emptyUsage();
  private stop: AssembledResponse["stop_reason"] = null;
  private rawStop: string | null = null;

  push(e: StreamEvent): void {
    switch (e.type) {
      case "response_start":
        this.id = e.id;
        this.model = e.model;
        return;
      case "text_delta":
      case "reasoning_delta": {
        const kind = e.type === "text_delta" ? "text" : "reasoning";
        const o = this.open.get(e.index);
        if (o && o.type === kind) o.text += e.text;
        else this.open.set(e.index, { type: kind, text: e.text });
        return;
      }
      case "text_done":
        this.open.delete(e.index);
        this.done.set(e.index, { type: "text", text: e.text });
        return;
      case "reasoning_done":
        this.open.delete(e.index);
        this.done.set(e.index, { type: "reasoning", text: e.text, replay: e.replay });
        return;
      case "tool_call_start":
        this.open.set(e.index, { type: "tool_call", id: e.id, name: e.name });
        return;
      case "tool_call_done":
        this.open.delete(e.index);
        this.done.set(e.index, { type: "tool_call", id: e.id, name: e.name, arguments: e.arguments, ...(e.replay ? { replay: e.replay } : {}) });
        return;
      case "usage":
        this.usage = { ...e.usage };
        return;
      case "done":
        this.usage = { ...e.usage };
        this.stop = e.stop_reason;
        this.rawStop = e.raw_stop_reason;
        return;
      default:
        return;
    }
  }

  /** Whether anything worth keeping arrived. */
  hasContent(): boolean {
    return this.snapshot().parts.length > 0;
  }

  snapshot(): AssembledResponse {
    const parts: [number, AssistantPart][] = [...this.done.entries()];
    for (const [i, o] of this.open) {
      if (o.type === "text" && o.text.length > 0) parts.push([i, { type: "text", text: o.text }]);
      else if (o.type === "reasoning" && o.text.length > 0) parts.push([i, { type: "reasoning", text: o.text, replay: null }]);
    }
    parts.sort((a, b) => a[0] - b[0]);
    return { id: this.id, model: this.model, parts: parts.map((p) => p[1]), usage: { ...this.usage }, stop_reason: this.stop, raw_stop_reason: this.rawStop };
  }
}
