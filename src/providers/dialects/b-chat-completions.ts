// Chat Completions dialect (`b_chat_completions` and the `*_chat_completions` variants).
import type { StopReason, Usage } from "../events.ts";
import { emptyUsage } from "../events.ts";
import { ProviderError, kindForStreamCode, protocolError } from "../errors.ts";
import type { ProtocolInfo, ReasoningDeltaField } from "../protocols.ts";
import type { ConversationMessage, ProviderRequest } from "../request.ts";
import { wireRequestOptions } from "../request-options.ts";
import { describeModel } from "../families/resolve.ts";
import type { ModelApi } from "../families/types.ts";
import { type DialectDecoder, type Emit, parseJson, parseToolArguments, streamIncomplete } from "./decoder.ts";
import { chatToolMessages } from "./tool-result-parts.ts";

/** Upper bound (exclusive) of a tool call's `index` in one response. */
export const MAX_TOOL_CALL_INDEX = 1024;

const EPHEMERAL = { type: "ephemeral" } as const;
/** Chat routers pass at most 4 cache_control marks to Anthropic: the system prompt and the 3 latest turns. */
const CHAT_CACHE_MARKS = 3;

/**
 * The reasoning an assistant message carries back, under the endpoint's name for it (`reasoning` on
 * OpenRouter), when the family asks for it on this message; `whenEmpty` stands in for missing reasoning.
 */
function replayedReasoning(m: Extract<ConversationMessage, { role: "assistant" }>, api: ModelApi, info: ProtocolInfo, model: string): Record<string, unknown> {
  const rule = api.replay;
  if (rule.field === "reasoning_details") {
    const details = m.content.flatMap((p) => (p.type === "reasoning" && p.replay?.dialect === "b_chat_completions" && p.replay.model === model ? p.replay.details : []));
    return details.length > 0 ? { reasoning_details: details } : {};
  }
  if (rule.field !== "reasoning_content") return {};
  if (rule.on === "tool_calls" && !m.content.some((p) => p.type === "tool_call")) return {};
  const text = m.content.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])).join("");
  const value = text.length > 0 ? text : rule.whenEmpty;
  if (value === null) return {};
  return { [info.reasoningDeltaField === "reasoning" ? "reasoning" : "reasoning_content"]: value };
}

/** cache_control on the system prompt and on the last part of the latest user and tool messages. */
function markCacheBreakpoints(messages: Record<string, unknown>[]): void {
  const mark = (m: Record<string, unknown>) => {
    const content = m.content;
    if (typeof content === "string") {
      if (content.length > 0) m.content = [{ type: "text", text: content, cache_control: EPHEMERAL }];
      return content.length > 0;
    }
    if (!Array.isArray(content) || content.length === 0) return false;
    const last = content[content.length - 1] as Record<string, unknown>;
    if (last.type !== "text") return false;
    content[content.length - 1] = { ...last, cache_control: EPHEMERAL };
    return true;
  };
  if (messages[0]?.role === "system") mark(messages[0]);
  let left = CHAT_CACHE_MARKS;
  for (let i = messages.length - 1; i >= 0 && left > 0; i--) {
    const m = messages[i]!;
    if ((m.role === "user" || m.role === "tool") && mark(m)) left--;
  }
}

/** The Chat Completions body the family description `api` accepts on this endpoint variant (`info`). */
export function buildChatBody(req: ProviderRequest, info: ProtocolInfo, api: ModelApi = describeModel("b_chat_completions", req.model)): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (req.system) messages.push({ role: "system", content: req.system });
  for (const m of req.messages) {
    if (m.role === "user") {
      const simple = m.content.every((p) => p.type === "text");
      messages.push({
        role: "user",
        content: simple
          ? m.content.map((p) => (p.type === "text" ? p.text : "")).join("")
          : m.content.map((p) =>
              p.type === "text" ? { type: "text", text: p.text } : { type: "image_url", image_url: { url: `data:${p.media_type};base64,${p.data_base64}` } },
            ),
      });
    } else if (m.role === "tool_results") {
      messages.push(...chatToolMessages(m.results));
    } else {
      const text = m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      const calls = m.content.flatMap((p) =>
        p.type === "tool_call"
          ? [{
              id: p.id,
              type: "function",
              function: { name: p.name, arguments: JSON.stringify(p.arguments) },
              // Gemini's thought signature goes back to the model that sent it, and to no other.
              ...(p.replay?.dialect === "b_chat_completions" && p.replay.model === req.model ? { extra_content: p.replay.extra_content } : {}),
            }]
          : [],
      );
      const msg: Record<string, unknown> = { role: "assistant", content: text.length > 0 ? text : null, ...replayedReasoning(m, api, info, req.model) };
      if (calls.length > 0) msg.tool_calls = calls;
      messages.push(msg);
    }
  }
  const body: Record<string, unknown> = { model: req.model, messages, stream: true };
  if (info.streamUsage) body.stream_options = { include_usage: true };
  if (req.tools.length > 0)
    body.tools = req.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.input_schema } }));
  if (req.tool_choice && req.tools.length > 0) {
    const c = req.tool_choice;
    body.tool_choice = c.type === "tool" ? { type: "function", function: { name: c.name } } : c.type;
  }
  if (req.max_output_tokens != null) body[api.maxOutputField ?? info.maxTokensField] = req.max_output_tokens;
  if (req.stop_sequences.length > 0) body.stop = req.stop_sequences;
  if (req.reasoning?.enabled && api.thinking.form === "flag") body[api.thinking.field] = true;
  if (req.reasoning?.effort && api.effort === "reasoning_effort") body.reasoning_effort = req.reasoning.effort;
  if (req.prompt_cache_key && info.promptCacheKey) body.prompt_cache_key = req.prompt_cache_key;
  if (api.cacheControl === "breakpoints") markCacheBreakpoints(messages);
  Object.assign(body, wireRequestOptions("b_chat_completions", req.request_options));
  return body;
}

const FINISH: Record<string, StopReason> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "content_filter",
};

interface CallState {
  part: number;
  id: string;
  name: string;
  args: string;
  started: boolean;
  /** `extra_content` of the call (Gemini's thought signature), sent back with it next turn. */
  extra?: Record<string, unknown>;
}

/**
 * Streamed reasoning text of a delta. OpenAI-compatible servers disagree on the field: DeepSeek, vLLM,
 * llama.cpp, Moonshot and Z.ai send `reasoning_content`, OpenRouter, Ollama, Groq and newer vLLM send
 * `reasoning` (some send both with the same text). The variant's own field is read first, the other one
 * only when it is absent, so reasoning from any server is kept and never counted twice.
 */
function reasoningOf(delta: Record<string, unknown>, preferred: ReasoningDeltaField): string | null {
  // Called for every chunk of an answer: no list of field names is built per call.
  const first = delta[preferred === "reasoning" ? "reasoning" : "reasoning_content"];
  if (typeof first === "string" && first.length > 0) return first;
  const other = delta[preferred === "reasoning" ? "reasoning_content" : "reasoning"];
  return typeof other === "string" && other.length > 0 ? other : null;
}

export class ChatCompletionsDecoder implements DialectDecoder {
  private nextPart = 0;
  private reasoningPart = -1;
  private reasoningText = "";
  /** OpenRouter's reasoning_details, merged by type and index as they stream (text, summary and data concatenated). */
  private readonly details = new Map<string, Record<string, unknown>>();
  private textPart = -1;
  private text = "";
  /** Whether the text came (partly) from `delta.refusal` (OpenAI's refusal channel). */
  private refused = false;
  private readonly calls: CallState[] = [];
  /** Calls of servers that send no `index` (Mistral, Gemini), in arrival order after the indexed ones. */
  private lastCall: CallState | null = null;
  private finishReason: string | null = null;
  private usage: Usage = emptyUsage();
  private started = false;
  private finished = false;

  constructor(
    private readonly emit: Emit,
    private readonly info: ProtocolInfo,
    /** The model the request named: a tool call's thought signature is kept for it (ToolCallReplay). */
    private readonly model: string | null = null,
  ) {}

  onSse(_event: string, data: string): void {
    if (this.finished) return;
    if (data === "[DONE]") return this.complete();
    const chunk = parseJson(data, "Chat Completions chunk");
    if (chunk.error) {
      const code: string = chunk.error.code ?? chunk.error.type ?? "server_error";
      const message: string = chunk.error.message ?? "provider reported an error";
      throw new ProviderError({ kind: kindForStreamCode(String(code), message), code: String(code), message: `in-stream error ${code}: ${message}` });
    }
    // Azure opens with a prompt-filter report (id "", model "", choices []): it names nothing.
    if (!this.started && (chunk.id || chunk.model || chunk.choices?.length > 0)) {
      this.started = true;
      this.emit({ type: "response_start", id: chunk.id || null, model: chunk.model || null });
    }
    if (chunk.usage) this.applyUsage(chunk.usage);
    // The include_usage chunk has `choices: []`; never assume choices[0] exists.
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    const reasoning = reasoningOf(delta, this.info.reasoningDeltaField);
    if (reasoning) {
      if (this.reasoningPart < 0) this.reasoningPart = this.nextPart++;
      this.reasoningText += reasoning;
      this.emit({ type: "reasoning_delta", index: this.reasoningPart, text: reasoning });
    }
    if (Array.isArray(delta.reasoning_details)) for (const d of delta.reasoning_details) this.reasoningDetail(d);
    if (typeof delta.content === "string" && delta.content.length > 0) this.textDelta(delta.content);
    // A refusal streams in its own field with content null; it is what the user must read.
    if (typeof delta.refusal === "string" && delta.refusal.length > 0) {
      this.refused = true;
      this.textDelta(delta.refusal);
    }
    if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls) this.toolDelta(tc);
    if (choice.finish_reason != null) this.finishReason = choice.finish_reason;
    // Moonshot reports the usage inside the last choice instead of at the top level.
    if (!chunk.usage && choice.usage) this.applyUsage(choice.usage);
  }

  end(): void {
    if (!this.finished) throw streamIncomplete("Chat Completions");
  }

  private reasoningDetail(d: unknown): void {
    if (!d || typeof d !== "object" || Array.isArray(d)) return;
    const detail = d as Record<string, unknown>;
    const key = `${String(detail.type)}:${String(detail.index ?? 0)}`;
    const known = this.details.get(key);
    if (!known) {
      this.details.set(key, { ...detail });
      return;
    }
    for (const [k, v] of Object.entries(detail)) {
      if ((k === "text" || k === "summary" || k === "data") && typeof v === "string" && typeof known[k] === "string") known[k] += v;
      else if (v !== null && v !== undefined) known[k] = v;
    }
  }

  private textDelta(text: string): void {
    if (this.textPart < 0) this.textPart = this.nextPart++;
    this.text += text;
    this.emit({ type: "text_delta", index: this.textPart, text });
  }

  private toolDelta(tc: Record<string, any>): void {
    let state: CallState | undefined;
    if (tc.index == null) {
      // Mistral and Gemini send each call whole and without an index: a new id (or no call yet) opens
      // a new call, anything else continues the last one.
      const last = this.lastCall;
      if (!last || (tc.id && last.id && tc.id !== last.id)) state = this.newCall(this.calls.length);
      else state = last;
    } else {
      const i: number = tc.index;
      // Bounded so a hostile index cannot make the (index-keyed) call list huge.
      if (!Number.isSafeInteger(i) || i < 0 || i >= MAX_TOOL_CALL_INDEX)
        throw protocolError(`Chat Completions tool_call delta with invalid index ${String(i)}`, "invalid_tool_index");
      state = this.calls[i] ?? this.newCall(i);
    }
    this.lastCall = state;
    if (tc.id) state.id = tc.id;
    if (tc.function?.name) state.name += tc.function.name;
    if (tc.extra_content && typeof tc.extra_content === "object" && !Array.isArray(tc.extra_content)) state.extra = tc.extra_content;
    if (!state.started && state.id && state.name) {
      state.started = true;
      this.emit({ type: "tool_call_start", index: state.part, id: state.id, name: state.name });
    }
    const piece = tc.function?.arguments;
    if (typeof piece === "string" && piece.length > 0) {
      state.args += piece;
      if (state.started) this.emit({ type: "tool_call_delta", index: state.part, id: state.id, arguments_delta: piece });
    }
  }

  private newCall(i: number): CallState {
    if (i >= MAX_TOOL_CALL_INDEX) throw protocolError(`Chat Completions response with more than ${MAX_TOOL_CALL_INDEX} tool calls`, "invalid_tool_index");
    const state: CallState = { part: this.nextPart++, id: "", name: "", args: "", started: false };
    this.calls[i] = state;
    return state;
  }

  private applyUsage(u: Record<string, any>): void {
    const prompt: number = u.prompt_tokens ?? 0;
    const completion: number = u.completion_tokens ?? 0;
    const reasoning: number = u.completion_tokens_details?.reasoning_tokens ?? 0;
    // DeepSeek's own cache field came first; newer servers also send the OpenAI one.
    const cached: number = u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens ?? 0;
    // OpenAI counts reasoning inside completion_tokens; xAI and Gemini report it beside them
    // (total = prompt + completion + reasoning). Output is what is billed as output either way.
    const reasoningApart = reasoning > 0 && u.total_tokens === prompt + completion + reasoning;
    this.usage = {
      // A prompt figure smaller than its cached part is one that left the cached tokens out.
      input_tokens: cached > prompt ? prompt + cached : prompt,
      output_tokens: reasoningApart ? completion + reasoning : completion,
      cache_read_tokens: cached,
      cache_write_tokens: 0,
      reasoning_tokens: reasoning,
    };
    this.emit({ type: "usage", usage: { ...this.usage } });
  }

  private complete(): void {
    if (this.finishReason === null) throw protocolError("Chat Completions stream ended without a finish_reason", "missing_finish_reason");
    this.finished = true;
    // Structured reasoning goes back verbatim to the model that wrote it (families: reasoning_details).
    const replay = this.details.size > 0 && this.model ? { dialect: "b_chat_completions" as const, model: this.model, details: [...this.details.values()] } : null;
    if (replay && this.reasoningPart < 0) this.reasoningPart = this.nextPart++;
    if (this.reasoningPart >= 0) this.emit({ type: "reasoning_done", index: this.reasoningPart, text: this.reasoningText, replay });
    if (this.textPart >= 0) this.emit({ type: "text_done", index: this.textPart, text: this.text });
    let calls = 0;
    for (const c of this.calls) {
      if (!c) continue;
      if (!c.name) throw protocolError("Chat Completions tool call without a name", "missing_tool_id");
      // Older Gemini sent id ""; the call still needs an id to pair with its result.
      if (!c.id) c.id = `call_${c.part}`;
      if (!c.started) this.emit({ type: "tool_call_start", index: c.part, id: c.id, name: c.name });
      const replay = c.extra && this.model ? { replay: { dialect: "b_chat_completions" as const, model: this.model, extra_content: c.extra } } : {};
      this.emit({ type: "tool_call_done", index: c.part, id: c.id, name: c.name, arguments: parseToolArguments(c.args, c.name, c.id), ...replay });
      calls++;
    }
    let stop: StopReason = FINISH[this.finishReason] ?? "other";
    // Gemini ends a streamed tool-call response with "stop"; the calls still wait for their results.
    if (stop === "end_turn" && calls > 0) stop = "tool_use";
    else if (stop === "end_turn" && this.refused) stop = "refusal";
    this.emit({ type: "done", stop_reason: stop, raw_stop_reason: this.finishReason, usage: { ...this.usage } });
  }
}
