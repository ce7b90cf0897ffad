// Chat Completions SSE frames for a TurnSpec (data-only lines, include_usage chunk, [DONE]).
import { type TurnSpec, frame, pieces } from "./turn-spec.ts";

export function chatFrames(spec: TurnSpec, options: { reasoningField?: string; includeUsage?: boolean } = {}): string[] {
  const n = spec.chunk ?? 7;
  const u = spec.usage ?? { input: 10, output: 5 };
  const id = spec.id ?? "chatcmpl-fake-1";
  const model = spec.model ?? "fake-model";
  const out: string[] = [];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    out.push(frame(null, { id, object: "chat.completion.chunk", created: 1750000000, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }));
  chunk({ role: "assistant", content: "" });
  if (spec.reasoning) for (const p of pieces(spec.reasoning.text, n)) chunk({ [options.reasoningField ?? "reasoning_content"]: p });
  if (spec.text !== undefined) for (const p of pieces(spec.text, n)) chunk({ content: p });
  (spec.tool_calls ?? []).forEach((call, i) => {
    chunk({ tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.name, arguments: "" }, ...(call.extra_content ? { extra_content: call.extra_content } : {}) }] });
    for (const p of pieces(call.arguments, n)) chunk({ tool_calls: [{ index: i, function: { arguments: p } }] });
  });
  chunk({}, spec.stop ?? ((spec.tool_calls ?? []).length > 0 ? "tool_calls" : "stop"));
  if (options.includeUsage ?? true)
    out.push(
      frame(null, {
        id,
        object: "chat.completion.chunk",
        created: 1750000000,
        model,
        choices: [],
        usage: {
          prompt_tokens: u.input,
          completion_tokens: u.output,
          total_tokens: u.input + u.output,
          prompt_tokens_details: { cached_tokens: u.cache_read ?? 0 },
          completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
        },
      }),
    );
  out.push(frame(null, "[DONE]"));
  return out;
}
