// Responses dialect (`b_responses`, `c_responses`): request body and stream decoder.
// Items are trusted from `response.output_item.done` (complete); deltas are forwarded for display.
import type { StopReason, Usage } from "../events.ts";
import { emptyUsage } from "../events.ts";
import { ProviderError, kindForStreamCode, protocolError } from "../errors.ts";
import type { ProviderRequest } from "../request.ts";
import { describeModel } from "../families/resolve.ts";
import type { ModelApi } from "../families/types.ts";
import { wireRequestOptions } from "../request-options.ts";
import { type DialectDecoder, type Emit, parseJson, parseToolArguments, streamIncomplete } from "./decoder.ts";
import { responsesToolOutput } from "./tool-result-parts.ts";

/** The Responses body the family description `api` accepts. */
export function buildResponsesBody(req: ProviderRequest, api: ModelApi = describeModel("b_responses", req.model)): Record<string, unknown> {
  const input: Record<string, unknown>[] = [];
  for (const m of req.messages) {
    if (m.role === "user") {
      input.push({
        type: "message",
        role: "user",
        content: m.content.map((p) =>
          p.type === "text" ? { type: "input_text", text: p.text } : { type: "input_image", image_url: `data:${p.media_type};base64,${p.data_base64}` },
        ),
      });
    } else if (m.role === "tool_results") {
      for (const r of m.results) input.push(responsesToolOutput(r));
    } else {
      for (const p of m.content) {
        if (p.type === "text") {
          if (p.text.length > 0) input.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: p.text }] });
        } else if (p.type === "tool_call") {
          input.push({ type: "function_call", call_id: p.id, name: p.name, arguments: JSON.stringify(p.arguments) });
        } else if (p.replay?.dialect === "b_responses" && api.replay.field === "encrypted_items") input.push({ ...p.replay.item }); // verbatim, encrypted_content included
      }
    }
  }
  const options = wireRequestOptions("b_responses", req.request_options);
  const store = options.store === true;
  const body: Record<string, unknown> = { model: req.model, input, stream: true, store };
  if (req.system) body.instructions = req.system;
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.input_schema, strict: false }));
    body.parallel_tool_calls = true;
    if (req.tool_choice) {
      const c = req.tool_choice;
      body.tool_choice = c.type === "tool" ? { type: "function", name: c.name } : c.type;
    }
  }
  if (req.max_output_tokens != null) body.max_output_tokens = req.max_output_tokens;
  if (req.reasoning) {
    body.reasoning = { ...(req.reasoning.effort && api.effort === "reasoning.effort" ? { effort: req.reasoning.effort } : {}), summary: "auto" };
    // Not stored server-side: ask for the encrypted reasoning so it can be replayed next turn.
    if (!store) body.include = ["reasoning.encrypted_content"];
  }
  if (req.prompt_cache_key) body.prompt_cache_key = req.prompt_cache_key;
  Object.assign(body, options);
  return body;
}

/** "Please try again in 1.5s" / "in 20ms" inside rate-limit messages. */
export function retryHintFromMessage(message: string): number | null {
  const m = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (!m) return null;
  const n = Number(m[1]);
  return Math.round(m[2]!.toLowerCase() === "ms" ? n : n * 1000);
}

export class ResponsesDecoder implements DialectDecoder {
  private lastSequence = -1;
  private finished = false;
  private sawToolCall = false;
  private refused = false;
  private readonly callIds = new Map<string, string>();

  constructor(private readonly emit: Emit) {}

  onSse(event: string, data: string): void {
    if (this.finished) return;
    const msg = parseJson(data, `Responses '${event}' event`);
    if (typeof msg.sequence_number === "number") {
      if (msg.sequence_number <= this.lastSequence)
        throw protocolError(`Responses sequence_number went from ${this.lastSequence} to ${msg.sequence_number}`, "sequence_out_of_order");
      this.lastSequence = msg.sequence_number;
    }
    const type: string = msg.type ?? event;
    switch (type) {
      case "response.created":
        this.emit({ type: "response_start", id: msg.response?.id ?? null, model: msg.response?.model ?? null });
        return;
      case "response.output_item.added": {
        const item = msg.item ?? {};
        if (item.type === "function_call") {
          if (!item.call_id || !item.name) throw protocolError("Responses function_call item without call_id or name", "missing_tool_id");
          this.callIds.set(item.id ?? item.call_id, item.call_id);
          this.emit({ type: "tool_call_start", index: msg.output_index, id: item.call_id, name: item.name });
        }
        return;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.emit({ type: "text_delta", index: msg.output_index, text: msg.delta });
        return;
      case "response.reasoning_summary_part.added":
        // Later summary parts are separate paragraphs, as in the final item's text.
        if (msg.summary_index > 0) this.emit({ type: "reasoning_delta", index: msg.output_index, text: "\n\n" });
        return;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.emit({ type: "reasoning_delta", index: msg.output_index, text: msg.delta });
        return;
      case "response.function_call_arguments.delta":
        this.emit({ type: "tool_call_delta", index: msg.output_index, id: this.callIds.get(msg.item_id) ?? msg.item_id, arguments_delta: msg.delta });
        return;
      case "response.output_item.done":
        return this.itemDone(msg.output_index, msg.item ?? {});
      case "response.completed":
      case "response.incomplete":
        return this.complete(type, msg.response ?? {});
      case "response.failed": {
        const err = msg.response?.error ?? {};
        throw this.failure(err.code ?? "server_error", err.message ?? "response failed");
      }
      case "error":
        throw this.failure(msg.code ?? msg.error?.code ?? "server_error", msg.message ?? msg.error?.message ?? "provider reported an error");
      default:
        return;
    }
  }

  end(): void {
    if (!this.finished) throw streamIncomplete("Responses");
  }

  private failure(code: string, message: string): ProviderError {
    return new ProviderError({
      kind: kindForStreamCode(code, message),
      code,
      message: `response failed with ${code}: ${message}`,
      retryAfterMs: retryHintFromMessage(message),
      // An exhausted quota (billing) does not come back by waiting: fail now, not after the
      // 30 s..960 s rate-limit schedule.
      shouldRetry: code === "insufficient_quota" ? false : null,
    });
  }

  private itemDone(index: number, item: Record<string, any>): void {
    if (item.type === "message") {
      if ((item.content ?? []).some((c: Record<string, any>) => c.type === "refusal")) this.refused = true;
      const text = (item.content ?? [])
        .map((c: Record<string, any>) => (c.type === "output_text" ? c.text : c.type === "refusal" ? c.refusal : ""))
        .join("");
      this.emit({ type: "text_done", index, text });
    } else if (item.type === "function_call") {
      this.sawToolCall = true;
      if (!item.call_id || !item.name) throw protocolError("Responses function_call item without call_id or name", "missing_tool_id");
      this.emit({ type: "tool_call_done", index, id: item.call_id, name: item.name, arguments: parseToolArguments(item.arguments ?? "", item.name, item.call_id) });
    } else if (item.type === "reasoning") {
      if (!item.id) throw protocolError("Responses reasoning item without id", "missing_reasoning_id");
      const text = [...(item.summary ?? []), ...(item.content ?? [])].map((s: Record<string, any>) => s.text ?? "").join("\n\n");
      this.emit({ type: "reasoning_done", index, text, replay: { dialect: "b_responses", item: item as Record<string, unknown> & { type: "reasoning"; id: string } } });
    }
  }

  private complete(type: string, response: Record<string, any>): void {
    this.finished = true;
    const u = response.usage;
    const usage: Usage = u
      ? {
          input_tokens: u.input_tokens ?? 0,
          output_tokens: u.output_tokens ?? 0,
          cache_read_tokens: u.input_tokens_details?.cached_tokens ?? 0,
          cache_write_tokens: 0,
          reasoning_tokens: u.output_tokens_details?.reasoning_tokens ?? 0,
        }
      : emptyUsage();
    if (u) this.emit({ type: "usage", usage: { ...usage } });
    let stop: StopReason;
    let raw: string | null;
    if (type === "response.incomplete") {
      raw = response.incomplete_details?.reason ?? "incomplete";
      stop = raw === "max_output_tokens" ? "max_tokens" : raw === "content_filter" ? "content_filter" : "other";
    } else {
      raw = response.status ?? "completed";
      stop = this.sawToolCall ? "tool_use" : this.refused ? "refusal" : "end_turn";
    }
    this.emit({ type: "done", stop_reason: stop, raw_stop_reason: raw, usage });
  }
}
