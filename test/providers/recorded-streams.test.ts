// Each dialect's decoder against streams recorded from the real services (fixtures/recorded/, sources in
// its README): what the user gets from them — text, reasoning to replay, tool calls, stop reason, usage,
// errors — must not depend on where the network cuts the bytes.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ProviderError } from "../../src/providers/errors.ts";
import type { AssembledResponse } from "../../src/providers/events.ts";
import type { ProviderProtocol } from "../../src/providers/protocols.ts";
import { planRetry } from "../../src/providers/retry.ts";
import { type DecodeResult, decodeChunks } from "./decode-helpers.ts";

const DIR = join(import.meta.dir, "fixtures", "recorded");
const bytes = (name: string) => new Uint8Array(readFileSync(join(DIR, name)));

/** Decodes whole, then cut at every `step`-th byte boundary and one byte at a time; all must agree. */
function decodeEverySplit(protocol: ProviderProtocol, name: string, step = 1): DecodeResult {
  const b = bytes(name);
  const whole = decodeChunks(protocol, [b]);
  const oneByOne = decodeChunks(protocol, Array.from(b, (_, i) => b.subarray(i, i + 1)));
  expect(oneByOne.assembled).toEqual(whole.assembled);
  expect(String(oneByOne.error)).toBe(String(whole.error));
  for (let i = 1; i < b.length; i += step) {
    const r = decodeChunks(protocol, [b.subarray(0, i), b.subarray(i)]);
    if (JSON.stringify(r.assembled) !== JSON.stringify(whole.assembled)) expect({ split: i, ...r.assembled }).toEqual({ split: i, ...whole.assembled });
    expect(String(r.error)).toBe(String(whole.error));
  }
  return whole;
}

const text = (a: AssembledResponse) => a.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text);
const tools = (a: AssembledResponse) => a.parts.filter((p) => p.type === "tool_call");

describe("Messages (a_messages), recorded streams", () => {
  test("thinking with its signature, pings, a tool call split mid-word and in a UTF-8 character, cache usage", () => {
    const r = decodeEverySplit("a_messages", "anthropic-thinking-tool-use.sse");
    expect(r.error).toBeNull();
    const a = r.assembled;
    expect(a.id).toBe("msg_01Y6V41gqPaKWEw7iPouH7iW");
    const thinking = "The previous result was 925. Now divide by 5.\n\n925 ÷ 5 = 185";
    expect(a.parts[0]).toEqual({
      type: "reasoning",
      text: thinking,
      replay: { dialect: "a_messages", block: { type: "thinking", thinking, signature: expect.stringMatching(/^EvQBCkYICxgCKkAxhD4N.*BgB$/) } },
    });
    expect(text(a)).toEqual(["I'll check the weather in Zürich for you."]);
    expect(tools(a)).toEqual([{ type: "tool_call", id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", arguments: { location: "Zürich 🌦" } }]);
    expect(a.stop_reason).toBe("tool_use");
    // Total input = input + cache writes + cache reads (Messages reports them apart).
    expect(a.usage).toEqual({ input_tokens: 4669, output_tokens: 118, cache_read_tokens: 3400, cache_write_tokens: 1200, reasoning_tokens: 0 });
  });

  test("redacted thinking is kept for replay, verbatim", () => {
    const r = decodeEverySplit("a_messages", "anthropic-redacted-thinking.sse", 5);
    expect(r.error).toBeNull();
    expect(r.assembled.parts).toEqual([
      { type: "reasoning", text: "", replay: { dialect: "a_messages", block: { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj" } } },
      { type: "text", text: "Hello, World!" },
    ]);
    expect(r.assembled.stop_reason).toBe("end_turn");
    expect(r.assembled.usage.input_tokens).toBe(17);
    expect(r.assembled.usage.output_tokens).toBe(227);
  });

  test("a refusal with no content block ends as refusal", () => {
    const r = decodeEverySplit("a_messages", "anthropic-refusal.sse", 3);
    expect(r.error).toBeNull();
    expect(r.assembled.parts).toEqual([]);
    expect(r.assembled.stop_reason).toBe("refusal");
    expect(r.assembled.raw_stop_reason).toBe("refusal");
  });

  test("a server tool's streamed input is not a tool call of ours; thinking tokens are counted", () => {
    const r = decodeEverySplit("a_messages", "anthropic-server-tool-refusal.sse", 7);
    expect(r.error).toBeNull();
    expect(r.events.filter((e) => e.type.startsWith("tool_call"))).toEqual([]);
    expect(r.assembled.parts).toEqual([{ type: "text", text: "Here's a summary of this year's solar eclipses and how" }]);
    expect(r.assembled.stop_reason).toBe("refusal");
    expect(r.assembled.usage).toEqual({ input_tokens: 612, output_tokens: 106, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 67 });
  });

  test("an overloaded error event mid-stream is a retryable overloaded error; the text so far is kept", () => {
    const r = decodeEverySplit("a_messages", "anthropic-overloaded-midstream.sse", 5);
    expect(r.error).toBeInstanceOf(ProviderError);
    expect((r.error as ProviderError).kind).toBe("overloaded");
    expect((r.error as ProviderError).code).toBe("overloaded_error");
    expect(text(r.assembled)).toEqual(["Hello"]);
  });

  test("a compatible server without cache fields: the later input figure wins; empty tool input is {}", () => {
    const r = decodeEverySplit("a_messages", "anthropic-proxy-usage.sse", 5);
    expect(r.error).toBeNull();
    expect(text(r.assembled)).toEqual(["pong"]);
    expect(tools(r.assembled)).toEqual([{ type: "tool_call", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: {} }]);
    expect(r.assembled.usage).toEqual({ input_tokens: 61, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 });
  });
});

describe("Chat Completions variants, recorded streams", () => {
  test("OpenAI: usage in the last chunk (choices: []), cached tokens", () => {
    const r = decodeEverySplit("b_chat_completions", "openai-chat-usage-last-chunk.sse", 3);
    expect(r.error).toBeNull();
    expect(text(r.assembled)).toEqual(["**Holiday plans**."]);
    expect(r.assembled.stop_reason).toBe("end_turn");
    expect(r.assembled.usage).toEqual({ input_tokens: 1616, output_tokens: 300, cache_read_tokens: 1280, cache_write_tokens: 0, reasoning_tokens: 0 });
  });

  test("OpenAI: a refusal streamed in delta.refusal is shown and ends as refusal", () => {
    const r = decodeEverySplit("b_chat_completions", "openai-chat-refusal.sse", 3);
    expect(r.error).toBeNull();
    expect(text(r.assembled)).toEqual(["I'm very sorry, but I can't assist with that request."]);
    expect(r.assembled.stop_reason).toBe("refusal");
    expect(r.assembled.raw_stop_reason).toBe("stop");
  });

  test("OpenAI: parallel tool calls interleaved by index, arguments cut inside an escape and a UTF-8 character", () => {
    const r = decodeEverySplit("b_chat_completions", "openai-chat-parallel-tool-calls.sse", 1);
    expect(r.error).toBeNull();
    expect(tools(r.assembled)).toEqual([
      { type: "tool_call", id: "call_oOWWo0ObgBAsp2bblvOQVnDu", name: "get_weather", arguments: { city: "München" } },
      { type: "tool_call", id: "call_Q6pW65MUgW9vF59BmItYGos3", name: "get_time", arguments: { tz: "Asia/Tokyo 東京" } },
    ]);
    expect(r.assembled.stop_reason).toBe("tool_use");
  });

  test("Azure: the prompt-filter chunk (empty id and model) does not name the response", () => {
    const r = decodeEverySplit("g_chat_completions", "azure-chat-prompt-filter.sse", 5);
    expect(r.error).toBeNull();
    expect(r.assembled.id).toBe("chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt");
    expect(r.assembled.model).toBe("gpt-5-nano-2025-08-07");
    expect(text(r.assembled)).toEqual(["Capital of France: Paris."]);
    expect(r.assembled.usage).toEqual({ input_tokens: 15, output_tokens: 78, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 64 });
  });

  test("DeepSeek: reasoning_content, a tool call in small pieces, usage with the finish chunk, cache hits", () => {
    const r = decodeEverySplit("d_chat_completions", "deepseek-reasoner-tool-call.sse", 3);
    expect(r.error).toBeNull();
    expect(r.assembled.parts).toEqual([
      { type: "reasoning", text: "The user wants the weather in San Francisco.", replay: null },
      { type: "tool_call", id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", arguments: { location: "San Francisco" } },
    ]);
    expect(r.assembled.stop_reason).toBe("tool_use");
    expect(r.assembled.usage).toEqual({ input_tokens: 339, output_tokens: 83, cache_read_tokens: 320, cache_write_tokens: 0, reasoning_tokens: 39 });
  });

  test("xAI: reasoning tokens reported outside completion_tokens are still billed output", () => {
    const r = decodeEverySplit("i_chat_completions", "xai-tool-call-reasoning.sse", 5);
    expect(r.error).toBeNull();
    expect(r.assembled.parts[0]).toEqual({ type: "reasoning", text: "First, the user is asking about the weather.", replay: null });
    expect(tools(r.assembled)).toEqual([{ type: "tool_call", id: "call_55117580", name: "weather", arguments: { location: "San Francisco" } }]);
    expect(r.assembled.usage).toEqual({ input_tokens: 291, output_tokens: 222, cache_read_tokens: 290, cache_write_tokens: 0, reasoning_tokens: 196 });
  });

  test("Mistral: a tool call without an index, finish and usage in the same chunk", () => {
    const r = decodeEverySplit("f_chat_completions", "mistral-tool-call-no-index.sse", 2);
    expect(r.error).toBeNull();
    expect(tools(r.assembled)).toEqual([{ type: "tool_call", id: "gSIMJiOkT", name: "weather", arguments: { location: "San Francisco" } }]);
    expect(r.assembled.stop_reason).toBe("tool_use");
    expect(r.assembled.usage).toMatchObject({ input_tokens: 124, output_tokens: 22 });
  });

  test("Groq: usage on the finishing chunk (also under x_groq)", () => {
    const r = decodeEverySplit("j_chat_completions", "groq-tool-call.sse", 3);
    expect(r.error).toBeNull();
    expect(tools(r.assembled)).toEqual([{ type: "tool_call", id: "tk85n1k4m", name: "weather", arguments: {} }]);
    expect(r.assembled.usage).toMatchObject({ input_tokens: 210, output_tokens: 15 });
  });

  test('Gemini: index-less parallel tool calls ending with finish_reason "stop" are tool use; usage with thoughts', () => {
    const r = decodeEverySplit("f_chat_completions", "gemini-chat-tool-calls.sse", 1);
    expect(r.error).toBeNull();
    expect(tools(r.assembled)).toEqual([
      { type: "tool_call", id: "function-call-1", name: "get_weather", arguments: { location: "Sydney" } },
      { type: "tool_call", id: "function-call-2", name: "get_time", arguments: { city: "Köln" } },
    ]);
    expect(r.assembled.stop_reason).toBe("tool_use");
    expect(r.assembled.raw_stop_reason).toBe("stop");
    expect(r.assembled.usage).toEqual({ input_tokens: 107, output_tokens: 179, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 148 });
  });

  test("a router's error chunk mid-stream is a retryable server error; the text so far is kept", () => {
    const r = decodeEverySplit("e_chat_completions", "openrouter-chat-midstream-error.sse", 5);
    expect(r.error).toBeInstanceOf(ProviderError);
    expect((r.error as ProviderError).kind).toBe("server");
    expect((r.error as ProviderError).code).toBe("server_error");
    expect(text(r.assembled)).toEqual(["Let me"]);
  });
});

describe("Responses (b_responses), recorded streams", () => {
  test("reasoning summaries and the final encrypted reasoning item for replay, a function call, usage", () => {
    const r = decodeEverySplit("b_responses", "openai-responses-reasoning-encrypted.sse", 11);
    expect(r.error).toBeNull();
    const a = r.assembled;
    const reasoning = a.parts[0] as Extract<AssembledResponse["parts"][number], { type: "reasoning" }>;
    expect(reasoning.text).toBe("**Calculating step-by-step**\n\nI'll compute 12 plus 7 first.\n\n**Using the calculator**");
    expect(reasoning.replay).toMatchObject({ dialect: "b_responses", item: { type: "reasoning", id: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9" } });
    // The done item's encrypted_content, not the one announced in output_item.added.
    expect((reasoning.replay as { item: Record<string, unknown> }).item.encrypted_content).toMatch(/^gAAAAABpPDIVOKrs.*myO==$/);
    // Streamed summary parts are kept apart for display as they are in the final text.
    const streamed = r.events.flatMap((e) => (e.type === "reasoning_delta" ? [e.text] : [])).join("");
    expect(streamed).toBe(reasoning.text);
    expect(tools(a)).toEqual([{ type: "tool_call", id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", name: "calculator", arguments: { a: 12, b: 7, op: "add" } }]);
    expect(a.stop_reason).toBe("tool_use");
    expect(a.usage).toEqual({ input_tokens: 2134, output_tokens: 228, cache_read_tokens: 1920, cache_write_tokens: 0, reasoning_tokens: 200 });
  });

  test("parallel function calls (output_index 0 and 1)", () => {
    const r = decodeEverySplit("b_responses", "openai-responses-parallel-tool-calls.sse", 7);
    expect(r.error).toBeNull();
    expect(tools(r.assembled)).toEqual([
      { type: "tool_call", id: "call_weather", name: "weather", arguments: { location: "San Francisco" } },
      { type: "tool_call", id: "call_attractions", name: "cityAttractions", arguments: { city: "Rome" } },
    ]);
    expect(r.assembled.stop_reason).toBe("tool_use");
  });

  test("an exhausted quota mid-stream fails at once: it is not retried on the rate-limit schedule", () => {
    const r = decodeEverySplit("b_responses", "openai-responses-quota-error.sse", 9);
    const e = r.error as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.code).toBe("insufficient_quota");
    expect(e.message).toContain("exceeded your current quota");
    const settings = { max_retries: 3, base_delay_ms: 1000, max_computed_delay_ms: 60000 };
    expect(planRetry(e, settings as never, { general: 0, rateLimit: 0 }, () => 0)).toEqual({ retry: false });
  });

  test("a refusal is shown as text and ends as refusal", () => {
    const r = decodeEverySplit("b_responses", "openai-responses-refusal.sse", 5);
    expect(r.error).toBeNull();
    expect(text(r.assembled)).toEqual(["I'm sorry, but I can't help with that."]);
    expect(r.assembled.stop_reason).toBe("refusal");
    expect(r.assembled.raw_stop_reason).toBe("completed");
  });
});
