// Messages dialect (`a_messages` and the `*_messages` variants): request body and stream decoder.
import type { StopReason, Usage } from "../events.ts";
import { emptyUsage } from "../events.ts";
import { ProviderError, kindForStreamCode, protocolError } from "../errors.ts";
import type { CacheControlStrategy, ConversationMessage, ProviderRequest } from "../request.ts";
import { budgetFor, describeModel } from "../families/resolve.ts";
import type { ModelApi } from "../families/types.ts";
import { wireRequestOptions } from "../request-options.ts";
import { type DialectDecoder, type Emit, parseJson, parseToolArguments, streamIncomplete } from "./decoder.ts";
import { messagesToolResult } from "./tool-result-parts.ts";

/** Messages requires max_tokens; used only when the model resolution gave no per-turn limit. */
export const MESSAGES_FALLBACK_MAX_TOKENS = 8192;
export const MAX_CACHE_BREAKPOINTS = 4;

type Block = Record<string, unknown>;
const EPHEMERAL = { type: "ephemeral" } as const;

function convertMessages(messages: ConversationMessage[], api: ModelApi): { role: "user" | "assistant"; content: Block[] }[] {
  const out: { role: "user" | "assistant"; content: Block[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    const last = out[out.length - 1];
    // Tool results and the next user text must share one user turn (roles alternate).
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "user") {
      push(
        "user",
        m.content.map((p) =>
          p.type === "text"
            ? { type: "text", text: p.text }
            : { type: "image", source: { type: "base64", media_type: p.media_type, data: p.data_base64 } },
        ),
      );
    } else if (m.role === "tool_results") {
      push("user", m.results.map(messagesToolResult));
    } else {
      const blocks: Block[] = [];
      for (const p of m.content) {
        if (p.type === "text") {
          if (p.text.length > 0) blocks.push({ type: "text", text: p.text });
        } else if (p.type === "tool_call") blocks.push({ type: "tool_use", id: p.id, name: p.name, input: p.arguments });
        // Thinking goes back verbatim (signature included); unsigned reasoning cannot be replayed.
        else if (p.replay?.dialect === "a_messages" && api.replay.field === "thinking_blocks") blocks.push({ ...p.replay.block });
      }
      if (blocks.length > 0) push("assistant", blocks);
    }
  }
  return out;
}

/**
 * The Messages body the family description `api` accepts (families/types.ts); a cache strategy alone
 * stands for the model's own family with that strategy.
 */
export function buildMessagesBody(req: ProviderRequest, described: ModelApi | CacheControlStrategy = describeModel("a_messages", req.model)): Record<string, unknown> {
  const api =
    typeof described === "string" ? { ...describeModel("a_messages", req.model), cacheControl: described === "breakpoints" ? ("breakpoints" as const) : ("automatic" as const) } : described;
  const messages = convertMessages(req.messages, api);
  const tools: Block[] = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
  const system: Block[] | undefined = req.system ? [{ type: "text", text: req.system }] : undefined;
  if (api.cacheControl === "breakpoints") {
    // Prefix order is tools -> system -> messages; at most 4 breakpoints: last tool, system, and a
    // moving breakpoint on the last block of each of the two latest user turns.
    let budget = MAX_CACHE_BREAKPOINTS;
    const lastTool = tools[tools.length - 1];
    if (lastTool) (lastTool.cache_control = EPHEMERAL), budget--;
    const sys = system?.[0];
    if (sys) (sys.cache_control = EPHEMERAL), budget--;
    for (let i = messages.length - 1; i >= 0 && budget > 0; i--) {
      const m = messages[i]!;
      const block = m.content[m.content.length - 1];
      if (m.role === "user" && block && block.type !== "thinking" && block.type !== "redacted_thinking") {
        m.content[m.content.length - 1] = { ...block, cache_control: EPHEMERAL };
        budget--;
      }
    }
  }
  const body: Record<string, unknown> = {
    model: req.model,
    max_tokens: req.max_output_tokens ?? MESSAGES_FALLBACK_MAX_TOKENS,
    stream: true,
    messages,
  };
  if (system) body.system = system;
  if (tools.length > 0) body.tools = tools;
  if (req.tool_choice && tools.length > 0) {
    const c = req.tool_choice;
    body.tool_choice = c.type === "tool" ? { type: "tool", name: c.name } : { type: c.type === "required" ? "any" : c.type };
  }
  if (req.stop_sequences.length > 0) body.stop_sequences = req.stop_sequences;
  const effort = req.reasoning?.effort ?? null;
  if (req.reasoning?.enabled) {
    const t = api.thinking;
    if (t.form === "adaptive") body.thinking = { type: "adaptive", ...(t.display ? { display: t.display } : {}) };
    else if (t.form === "budget") body.thinking = { type: "enabled", budget_tokens: budgetFor(effort, body.max_tokens as number, req.reasoning.budget_tokens) };
    else if (t.form === "flag") body[t.field] = true;
  }
  if (effort && api.effort === "output_config.effort") body.output_config = { effort };
  Object.assign(body, wireRequestOptions("a_messages", req.request_options));
  return body;
}

const STOP: Record<string, StopReason> = {
  end_turn: "end_turn",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  tool_use: "tool_use",
  pause_turn: "pause_turn",
  refusal: "refusal",
  model_context_window_exceeded: "context_window_exceeded",
};

interface BlockState {
  kind: "text" | "tool_use" | "thinking" | "redacted_thinking" | "other";
  text: string;
  id: string;
  name: string;
  signature: string;
  data: string;
}

export class MessagesDecoder implements DialectDecoder {
  private readonly blocks = new Map<number, BlockState>();
  private readonly usage: Usage = emptyUsage();
  private raw = { input: 0, cacheWrite: 0, cacheRead: 0 };
  private started = false;
  private stopReason: string | null = null;
  private finished = false;

  constructor(private readonly emit: Emit) {}

  onSse(event: string, data: string): void {
    if (this.finished) return;
    if (event === "ping") return;
    const msg = parseJson(data, `Messages '${event}' event`);
    switch (msg.type ?? event) {
      case "message_start": {
        const m = msg.message ?? {};
        this.started = true;
        this.emit({ type: "response_start", id: m.id ?? null, model: m.model ?? null });
        this.applyUsage(m.usage);
        return;
      }
      case "content_block_start":
        return this.blockStart(msg.index, msg.content_block ?? {});
      case "content_block_delta":
        return this.blockDelta(msg.index, msg.delta ?? {});
      case "content_block_stop":
        return this.blockStop(msg.index);
      case "message_delta":
        if (msg.delta?.stop_reason != null) this.stopReason = msg.delta.stop_reason;
        this.applyUsage(msg.usage);
        return;
      case "message_stop": {
        if (!this.started) throw protocolError("Messages stream sent message_stop before message_start");
        if (this.stopReason === null) throw protocolError("Messages stream ended without a stop_reason", "missing_stop_reason");
        this.finished = true;
        this.emit({ type: "done", stop_reason: STOP[this.stopReason] ?? "other", raw_stop_reason: this.stopReason, usage: { ...this.usage } });
        return;
      }
      case "error": {
        const type: string = msg.error?.type ?? "api_error";
        const message: string = msg.error?.message ?? "provider reported an error";
        throw new ProviderError({ kind: kindForStreamCode(type, message), code: type, message: `in-stream error ${type}: ${message}` });
      }
      default:
        return; // New event types are allowed by the versioning policy.
    }
  }

  end(): void {
    if (!this.finished) throw streamIncomplete("Messages");
  }

  private applyUsage(u: Record<string, any> | undefined): void {
    if (!u) return;
    // message_delta usage is cumulative: copy every non-null field.
    if (u.input_tokens != null) this.raw.input = u.input_tokens;
    if (u.cache_creation_input_tokens != null) this.raw.cacheWrite = u.cache_creation_input_tokens;
    if (u.cache_read_input_tokens != null) this.raw.cacheRead = u.cache_read_input_tokens;
    if (u.output_tokens != null) this.usage.output_tokens = u.output_tokens;
    // Newer APIs say how much of the output was thinking (a subset of output_tokens).
    if (u.output_tokens_details?.thinking_tokens != null) this.usage.reasoning_tokens = u.output_tokens_details.thinking_tokens;
    this.usage.input_tokens = this.raw.input + this.raw.cacheWrite + this.raw.cacheRead;
    this.usage.cache_write_tokens = this.raw.cacheWrite;
    this.usage.cache_read_tokens = this.raw.cacheRead;
    this.emit({ type: "usage", usage: { ...this.usage } });
  }

  private blockStart(index: number, block: Record<string, any>): void {
    if (!this.started) throw protocolError("Messages stream sent a content block before message_start");
    const kind = (["text", "tool_use", "thinking", "redacted_thinking"] as const).find((k) => k === block.type) ?? "other";
    const state: BlockState = { kind, text: "", id: "", name: "", signature: "", data: "" };
    this.blocks.set(index, state);
    if (kind === "text" && typeof block.text === "string" && block.text.length > 0) {
      state.text = block.text;
      this.emit({ type: "text_delta", index, text: block.text });
    } else if (kind === "tool_use") {
      if (!block.id || !block.name) throw protocolError("Messages tool_use block without id or name", "missing_tool_id");
      state.id = block.id;
      state.name = block.name;
      this.emit({ type: "tool_call_start", index, id: state.id, name: state.name });
    } else if (kind === "thinking") {
      state.text = block.thinking ?? "";
      state.signature = block.signature ?? "";
    } else if (kind === "redacted_thinking") state.data = block.data ?? "";
  }

  private blockDelta(index: number, delta: Record<string, any>): void {
    const state = this.blocks.get(index);
    if (!state) throw protocolError(`Messages delta for unknown content block ${index}`, "unknown_block");
    // A delta counts only for its own block kind: a server tool's streamed input (server_tool_use block)
    // must not look like a tool call of ours, and blocks we do not assemble carry nothing for us.
    switch (delta.type) {
      case "text_delta":
        if (state.kind !== "text") return;
        state.text += delta.text;
        this.emit({ type: "text_delta", index, text: delta.text });
        return;
      case "input_json_delta":
        if (state.kind !== "tool_use") return;
        state.text += delta.partial_json;
        this.emit({ type: "tool_call_delta", index, id: state.id, arguments_delta: delta.partial_json });
        return;
      case "thinking_delta":
        if (state.kind !== "thinking") return;
        state.text += delta.thinking;
        this.emit({ type: "reasoning_delta", index, text: delta.thinking });
        return;
      case "signature_delta":
        if (state.kind !== "thinking") return;
        state.signature += delta.signature;
        return;
      default:
        return; // citations_delta and future delta types carry nothing we assemble.
    }
  }

  private blockStop(index: number): void {
    const state = this.blocks.get(index);
    if (!state) throw protocolError(`Messages stop for unknown content block ${index}`, "unknown_block");
    this.blocks.delete(index);
    if (state.kind === "text") this.emit({ type: "text_done", index, text: state.text });
    else if (state.kind === "tool_use")
      this.emit({ type: "tool_call_done", index, id: state.id, name: state.name, arguments: parseToolArguments(state.text, state.name, state.id) });
    else if (state.kind === "thinking")
      this.emit({
        type: "reasoning_done",
        index,
        text: state.text,
        replay: { dialect: "a_messages", block: { type: "thinking", thinking: state.text, signature: state.signature } },
      });
    else if (state.kind === "redacted_thinking")
      this.emit({ type: "reasoning_done", index, text: "", replay: { dialect: "a_messages", block: { type: "redacted_thinking", data: state.data } } });
  }
}
