// Reasoning and usage from the OpenAI-compatible servers whose streams differ from OpenAI's own. The
// frames follow the shapes these servers send (field names, nulls, empty first deltas, where usage
// goes), written from their documentation and published examples: DeepSeek's reasoner and vLLM put
// the thinking in `delta.reasoning_content`, Ollama's /v1 and OpenRouter in `delta.reasoning`, newer
// vLLM sends both, Moonshot puts usage inside the last choice. Reasoning from a custom server (the
// default `b_chat_completions`) used to be dropped.
import { describe, expect, test } from "bun:test";
import type { ProviderProtocol } from "../../src/providers/protocols.ts";
import { bytesOf, decodeChunks, everySplit } from "./decode-helpers.ts";

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1735689600, model: "m", system_fingerprint: "fp_1", choices: [{ index: 0, delta, logprobs: null, finish_reason: null }], ...extra })}\n\n`;
const finish = (reason: string, choiceExtra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1735689600, model: "m", choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: reason, ...choiceExtra }] })}\n\n`;
const usage = (u: Record<string, unknown>) => `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1735689600, model: "m", choices: [], usage: u })}\n\n`;
const DONE = "data: [DONE]\n\n";

// DeepSeek deepseek-reasoner: an empty reasoning_content first, then reasoning with content null, then content with reasoning_content null.
const DEEPSEEK = [
  chunk({ role: "assistant", content: null, reasoning_content: "" }),
  chunk({ content: null, reasoning_content: "The user greets. " }),
  chunk({ content: null, reasoning_content: "Answer briefly." }),
  chunk({ content: "Hello", reasoning_content: null }),
  chunk({ content: "!", reasoning_content: null }),
  finish("stop"),
  usage({ prompt_tokens: 10, completion_tokens: 20, total_tokens: 30, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 12 }, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 10 }),
  DONE,
];

// Ollama's OpenAI-compatible /v1/chat/completions for a thinking model: `reasoning` in the delta.
const OLLAMA = [
  chunk({ role: "assistant", content: "", reasoning: "Thinking about it." }),
  chunk({ role: "assistant", content: "Hello!" }),
  finish("stop"),
  usage({ prompt_tokens: 8, completion_tokens: 9, total_tokens: 17 }),
  DONE,
];

// vLLM with a reasoning parser (newer releases): both fields carry the same text.
const VLLM_BOTH = [
  chunk({ role: "assistant", content: "" }),
  chunk({ reasoning: "Step one.", reasoning_content: "Step one." }),
  chunk({ content: "Done." }),
  finish("stop"),
  DONE,
];

// Moonshot: usage inside the final choice, no top-level usage chunk.
const MOONSHOT = [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: null, reasoning_content: "Hmm." }),
  chunk({ content: "Hi." }),
  finish("stop", { usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } }),
  DONE,
];

const reasoningOf = (protocol: ProviderProtocol, frames: string[]) => {
  const r = decodeChunks(protocol, [bytesOf(frames)]);
  expect(r.error).toBeNull();
  return { text: r.assembled.parts.find((p) => p.type === "text"), reasoning: r.assembled.parts.find((p) => p.type === "reasoning"), usage: r.assembled.usage, stop: r.assembled.stop_reason };
};

describe("reasoning fields of OpenAI-compatible servers", () => {
  test("DeepSeek (reasoning_content) on its own variant and on a custom server's default protocol", () => {
    for (const protocol of ["d_chat_completions", "b_chat_completions", "h_chat_completions", "e_chat_completions"] as const) {
      const r = reasoningOf(protocol, DEEPSEEK);
      expect(r.reasoning?.text).toBe("The user greets. Answer briefly.");
      expect(r.text).toEqual({ type: "text", text: "Hello!" });
      expect(r.usage).toEqual({ input_tokens: 10, output_tokens: 20, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 12 });
      expect(r.stop).toBe("end_turn");
    }
  });

  test("Ollama (reasoning) on the local-server variant and the base dialect", () => {
    for (const protocol of ["h_chat_completions", "b_chat_completions"] as const) {
      const r = reasoningOf(protocol, OLLAMA);
      expect(r.reasoning?.text).toBe("Thinking about it.");
      expect(r.text).toEqual({ type: "text", text: "Hello!" });
    }
  });

  test("both fields with the same text are counted once, whichever the variant prefers", () => {
    for (const protocol of ["e_chat_completions", "d_chat_completions", "b_chat_completions"] as const) {
      expect(reasoningOf(protocol, VLLM_BOTH).reasoning?.text).toBe("Step one.");
    }
  });

  test("Moonshot's usage inside the last choice is read", () => {
    const r = reasoningOf("d_chat_completions", MOONSHOT);
    expect(r.usage).toMatchObject({ input_tokens: 5, output_tokens: 6 });
    expect(r.reasoning?.text).toBe("Hmm.");
  });

  test("the same at every byte boundary", () => {
    const bytes = bytesOf(DEEPSEEK);
    for (const parts of everySplit(bytes)) {
      const r = decodeChunks("b_chat_completions", parts);
      expect(r.error).toBeNull();
      expect(r.assembled.parts.find((p) => p.type === "reasoning")?.text).toBe("The user greets. Answer briefly.");
    }
  });
});
