// Responses SSE frames for a TurnSpec: named events, increasing sequence_number, no [DONE].
import { type TurnSpec, frame, pieces } from "./turn-spec.ts";

export function responsesFrames(spec: TurnSpec, options: { terminal?: "completed" | "incomplete" } = {}): string[] {
  const n = spec.chunk ?? 7;
  const u = spec.usage ?? { input: 10, output: 5 };
  const id = spec.id ?? "resp_fake_1";
  const model = spec.model ?? "fake-model";
  const out: string[] = [];
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>) => out.push(frame(type, { type, sequence_number: seq++, ...body }));
  const base = { id, object: "response", created_at: 1750000000, model, output: [] as unknown[], parallel_tool_calls: true, tool_choice: "auto", tools: [] };
  ev("response.created", { response: { ...base, status: "in_progress" } });
  ev("response.in_progress", { response: { ...base, status: "in_progress" } });
  const output: Record<string, unknown>[] = [];
  let oi = 0;
  if (spec.reasoning) {
    const rid = spec.reasoning.id ?? "rs_fake_1";
    ev("response.output_item.added", { output_index: oi, item: { type: "reasoning", id: rid, summary: [] } });
    ev("response.reasoning_summary_part.added", { item_id: rid, output_index: oi, summary_index: 0, part: { type: "summary_text", text: "" } });
    for (const p of pieces(spec.reasoning.text, n)) ev("response.reasoning_summary_text.delta", { item_id: rid, output_index: oi, summary_index: 0, delta: p });
    ev("response.reasoning_summary_text.done", { item_id: rid, output_index: oi, summary_index: 0, text: spec.reasoning.text });
    ev("response.reasoning_summary_part.done", { item_id: rid, output_index: oi, summary_index: 0, part: { type: "summary_text", text: spec.reasoning.text } });
    const item = { type: "reasoning", id: rid, summary: [{ type: "summary_text", text: spec.reasoning.text }], encrypted_content: spec.reasoning.encrypted ?? "enc_fake" };
    ev("response.output_item.done", { output_index: oi, item });
    output.push(item);
    oi++;
  }
  if (spec.text !== undefined) {
    const mid = "msg_fake_1";
    ev("response.output_item.added", { output_index: oi, item: { type: "message", id: mid, status: "in_progress", role: "assistant", content: [] } });
    ev("response.content_part.added", { item_id: mid, output_index: oi, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    for (const p of pieces(spec.text, n)) ev("response.output_text.delta", { item_id: mid, output_index: oi, content_index: 0, delta: p, logprobs: [] });
    ev("response.output_text.done", { item_id: mid, output_index: oi, content_index: 0, text: spec.text, logprobs: [] });
    const part = { type: "output_text", text: spec.text, annotations: [] };
    ev("response.content_part.done", { item_id: mid, output_index: oi, content_index: 0, part });
    const item = { type: "message", id: mid, status: "completed", role: "assistant", content: [part] };
    ev("response.output_item.done", { output_index: oi, item });
    output.push(item);
    oi++;
  }
  for (const call of spec.tool_calls ?? []) {
    const fid = `fc_${call.id}`;
    ev("response.output_item.added", { output_index: oi, item: { type: "function_call", id: fid, call_id: call.id, name: call.name, arguments: "", status: "in_progress" } });
    for (const p of pieces(call.arguments, n)) ev("response.function_call_arguments.delta", { item_id: fid, output_index: oi, delta: p });
    ev("response.function_call_arguments.done", { item_id: fid, output_index: oi, arguments: call.arguments });
    const item = { type: "function_call", id: fid, call_id: call.id, name: call.name, arguments: call.arguments, status: "completed" };
    ev("response.output_item.done", { output_index: oi, item });
    output.push(item);
    oi++;
  }
  const usage = {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cache_read ?? 0 },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + u.output,
  };
  if ((options.terminal ?? "completed") === "completed") ev("response.completed", { response: { ...base, status: "completed", output, usage } });
  else ev("response.incomplete", { response: { ...base, status: "incomplete", incomplete_details: { reason: spec.stop ?? "max_output_tokens" }, output, usage } });
  return out;
}
