// Messages-dialect SSE frames for a TurnSpec, as the first-party endpoint sends them.
import { type TurnSpec, frame, pieces } from "./turn-spec.ts";

export function messagesFrames(spec: TurnSpec): string[] {
  const n = spec.chunk ?? 7;
  const u = spec.usage ?? { input: 10, output: 5 };
  const out: string[] = [];
  const ev = (type: string, body: Record<string, unknown>) => out.push(frame(type, { type, ...body }));
  ev("message_start", {
    message: {
      id: spec.id ?? "msg_fake_1",
      type: "message",
      role: "assistant",
      model: spec.model ?? "fake-model",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: u.input, cache_creation_input_tokens: u.cache_write ?? 0, cache_read_input_tokens: u.cache_read ?? 0, output_tokens: 1 },
    },
  });
  out.push(frame("ping", { type: "ping" }));
  let index = 0;
  if (spec.reasoning) {
    ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const p of pieces(spec.reasoning.text, n)) ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: p } });
    ev("content_block_delta", { index, delta: { type: "signature_delta", signature: spec.reasoning.signature ?? "sig_fake" } });
    ev("content_block_stop", { index });
    index++;
  }
  if (spec.text !== undefined) {
    ev("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const p of pieces(spec.text, n)) ev("content_block_delta", { index, delta: { type: "text_delta", text: p } });
    ev("content_block_stop", { index });
    index++;
  }
  for (const call of spec.tool_calls ?? []) {
    ev("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    for (const p of pieces(call.arguments, n)) ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } });
    ev("content_block_stop", { index });
    index++;
  }
  const stop = spec.stop ?? ((spec.tool_calls ?? []).length > 0 ? "tool_use" : "end_turn");
  ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: u.output } });
  ev("message_stop", {});
  return out;
}
