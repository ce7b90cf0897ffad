// The daemon's ordered records as ACP session/update notifications: streamed text and reasoning as
// message and thought chunks, tool calls (kind, title, locations, diff content) through their
// lifecycle, the model's plan (or, while it keeps none, its progress lines) as a plan, and the user's prompts. The same translation serves history
// replay (session/load) and the live stream; `live` only decides whether files are read for diffs and
// whether the editor's own prompts are echoed back.
import type { ContentBlock, PlanEntry, SessionUpdate, ToolCallContent, ToolCallStatus } from "@agentclientprotocol/sdk";
import type { SyncRecordBody } from "../protocol/sync-record.ts";

/** A record as it arrives: its body (a discriminated union) and its position. */
export type Rec = SyncRecordBody & { seq: string };
import { HIDDEN_TOOLS, outputContent, toolView } from "./tool-calls.ts";

interface PartState {
  kind: "text" | "reasoning" | "tool_call";
  /** Text already sent for this part (from deltas). */
  sent: string;
  name?: string;
  announced?: boolean;
  /** The diff shown for the call, kept when its output is added. */
  diff?: ToolCallContent[];
}

export interface TranslateOptions {
  /** The session's project directory (relative tool paths resolve against it). */
  cwd: string;
  /** Whether a prompt was sent by this editor (live echoes of it are left out: the editor shows it already). */
  isOwnPrompt?: (inputId: string) => boolean;
}

export class RecordTranslator {
  private parts = new Map<string, PartState>();
  /** The newest tool_call part of each provider call id (records of older daemons lack part_id). */
  private callParts = new Map<string, string>();
  /** Progress lines shown as a plan, while the model keeps no plan of its own. */
  private plan: PlanEntry[] = [];
  /** The model keeps a plan (the plan tool): that is the editor's plan, and progress lines stay out of it. */
  private modelPlan = false;
  /** Calls that started and have not completed, in start order: a permission question is about one of them. */
  private running: { partId: string; name: string; args: string }[] = [];

  constructor(private readonly options: TranslateOptions) {}

  /** The tool_call part id a call record refers to. */
  partOf(record: { call_id?: string; part_id?: string; result?: { call_id: string } }): string | undefined {
    return record.part_id ?? this.callParts.get(record.call_id ?? record.result?.call_id ?? "");
  }

  /** The name and arguments of a tool call this translator has seen. */
  call(partId: string): { name: string } | undefined {
    const p = this.parts.get(partId);
    return p?.kind === "tool_call" && p.name ? { name: p.name } : undefined;
  }

  /** The running call of `name` with these arguments (else the newest running call of `name`). */
  openCall(name: string, args: Record<string, unknown>): string | undefined {
    const calls = this.running.filter((c) => c.name === name);
    const json = JSON.stringify(args);
    return (calls.findLast((c) => c.args === json) ?? calls.at(-1))?.partId;
  }

  translate(record: Rec, live: boolean): SessionUpdate[] {
    switch (record.type) {
      case "user_message": {
        const m = record.message;
        if (m.origin !== "prompt" && m.origin !== "handoff") return [];
        if (live && this.options.isOwnPrompt?.(m.id)) return [];
        return m.content.map((c): SessionUpdate => ({
          sessionUpdate: "user_message_chunk",
          messageId: m.id,
          content: c.type === "text" ? { type: "text", text: c.text } : { type: "image", mimeType: c.media_type, data: c.data_base64 },
        }));
      }
      case "part_started": {
        if (record.kind !== "tool_call") {
          this.parts.set(record.part_id, { kind: record.kind, sent: "" });
          return [];
        }
        const name = record.name ?? "tool";
        this.parts.set(record.part_id, { kind: "tool_call", sent: "", name });
        if (record.call_id) this.callParts.set(record.call_id, record.part_id);
        if (HIDDEN_TOOLS.has(name)) return [];
        this.parts.get(record.part_id)!.announced = true;
        const view = toolView(name, {}, this.options.cwd, false);
        return [{ sessionUpdate: "tool_call", toolCallId: record.part_id, title: view.title, kind: view.kind, status: "pending", rawInput: {} }];
      }
      case "part_delta": {
        const p = this.parts.get(record.part_id);
        if (!p || p.kind === "tool_call") return [];
        p.sent += record.delta;
        return [chunk(p.kind, record.message_id, record.delta)];
      }
      case "part_completed": {
        const part = record.part;
        if (part.type !== "tool_call") {
          const p = this.parts.get(part.id) ?? { kind: part.type, sent: "" };
          this.parts.delete(part.id);
          // Deltas may have been coalesced or not journaled at all: send what is missing.
          const rest = part.text.startsWith(p.sent) ? part.text.slice(p.sent.length) : "";
          return rest ? [chunk(part.type, record.message_id, rest)] : [];
        }
        let p = this.parts.get(part.id);
        if (!p) {
          p = { kind: "tool_call", sent: "", name: part.name };
          this.parts.set(part.id, p);
        }
        this.callParts.set(part.call_id, part.id);
        if (HIDDEN_TOOLS.has(part.name)) return [];
        const view = toolView(part.name, part.arguments, this.options.cwd, live);
        p.diff = view.content;
        const fields = { toolCallId: part.id, title: view.title, kind: view.kind, locations: view.locations, content: view.content, rawInput: part.arguments };
        if (p.announced) return [{ sessionUpdate: "tool_call_update", ...fields }];
        p.announced = true;
        return [{ sessionUpdate: "tool_call", status: "pending", ...fields }];
      }
      case "part_discarded": {
        const p = this.parts.get(record.part_id);
        this.parts.delete(record.part_id);
        // A broken attempt's tool call is dropped (the retry may issue it again).
        if (p?.kind === "tool_call" && p.announced) return [{ sessionUpdate: "tool_call_update", toolCallId: record.part_id, status: "failed", content: outputContent("(dropped: the provider's answer broke off and is retried)") }];
        return [];
      }
      case "tool_call_started": {
        const id = this.partOf(record);
        if (!id || HIDDEN_TOOLS.has(record.name)) return [];
        this.running.push({ partId: id, name: record.name, args: JSON.stringify(record.arguments) });
        const p = this.parts.get(id);
        if (p && !p.announced) {
          p.announced = true;
          const view = toolView(record.name, record.arguments, this.options.cwd, live);
          p.diff = view.content;
          return [{ sessionUpdate: "tool_call", toolCallId: id, title: view.title, kind: view.kind, status: "in_progress", locations: view.locations, content: view.content, rawInput: record.arguments }];
        }
        return [{ sessionUpdate: "tool_call_update", toolCallId: id, status: "in_progress" }];
      }
      case "tool_call_completed": {
        const id = this.partOf(record);
        this.running = this.running.filter((c) => c.partId !== id);
        if (!id || HIDDEN_TOOLS.has(record.result.name)) return [];
        const p = this.parts.get(id);
        this.parts.delete(id);
        const status: ToolCallStatus = record.result.status === "completed" ? "completed" : "failed";
        const diff = settledDiff(p?.diff ?? [], record.result.metadata);
        const images: ToolCallContent[] = (record.result.images ?? []).map((i) => ({ type: "content", content: { type: "image", mimeType: i.media_type, data: i.data_base64 } }));
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: id,
            status,
            content: [...diff, ...outputContent(record.result.output), ...images],
            rawOutput: { status: record.result.status, output: record.result.output },
          },
        ];
      }
      case "plan_updated": {
        this.modelPlan = record.items.length > 0;
        this.plan = [];
        const entries = record.items.map((i): PlanEntry => ({ content: i.text, priority: "medium", status: i.status === "done" ? "completed" : i.status }));
        return [{ sessionUpdate: "plan", entries }];
      }
      case "progress": {
        if (this.modelPlan) return [];
        // Each status line is a step: the earlier ones are done, the newest is under way.
        this.plan = [...this.plan.map((e) => ({ ...e, status: "completed" as const })), { content: record.text, priority: "medium", status: "in_progress" }];
        return [{ sessionUpdate: "plan", entries: this.plan }];
      }
      case "turn_completed": {
        this.running = [];
        const out: SessionUpdate[] = [];
        if (this.plan.length > 0) out.push({ sessionUpdate: "plan", entries: this.plan.map((e) => ({ ...e, status: "completed" })) });
        this.plan = [];
        // Live, the editor gets the error as the prompt's answer; in a replay it is part of the story.
        if (!live && record.stop_reason === "error" && record.error) out.push(chunk("text", undefined, `\n\nerror: ${record.error.message}`));
        return out;
      }
      default:
        return [];
    }
  }
}

/**
 * The diff of a finished call from what its result says: a file it created had no old text, and the
 * text a write overwrote (`old_text`) is the old text, whatever the disk showed when the call was
 * announced (the tool may already have run then) or when it is replayed (the disk is not read).
 */
function settledDiff(diff: ToolCallContent[], metadata: Record<string, unknown> | undefined): ToolCallContent[] {
  if (metadata?.created === true) return diff.map((c) => (c.type === "diff" ? { ...c, oldText: null } : c));
  const old = metadata?.old_text;
  if (typeof old === "string") return diff.map((c) => (c.type === "diff" ? { ...c, oldText: old } : c));
  return diff;
}

function chunk(kind: "text" | "reasoning", messageId: string | undefined, text: string): SessionUpdate {
  const content: ContentBlock = { type: "text", text };
  return kind === "reasoning" ? { sessionUpdate: "agent_thought_chunk", messageId, content } : { sessionUpdate: "agent_message_chunk", messageId, content };
}
