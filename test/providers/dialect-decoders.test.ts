import { describe, expect, test } from "bun:test";
import { ProviderError } from "../../src/providers/errors.ts";
import type { ProviderProtocol } from "../../src/providers/protocols.ts";
import { messagesFrames } from "../fakes/wire-a-messages.ts";
import { chatFrames } from "../fakes/wire-b-chat.ts";
import { responsesFrames } from "../fakes/wire-b-responses.ts";
import { type TurnSpec, frame } from "../fakes/turn-spec.ts";
import { bytesOf, decodeChunks, everySplit } from "./decode-helpers.ts";

const TURN: TurnSpec = {
  reasoning: { text: "Need the file → read it", signature: "sig_abc", encrypted: "enc_xyz", id: "rs_1" },
  text: "Voilà: 🌍 世界",
  tool_calls: [
    { id: "call_1", name: "read_file", arguments: '{"path":"src/ä.ts","lines":[1,2]}' },
    { id: "call_2", name: "shell", arguments: '{"cmd":"ls -la"}' },
  ],
  usage: { input: 100, output: 42, cache_read: 30, cache_write: 20, reasoning: 7 },
  chunk: 3,
};

const CASES: { protocol: ProviderProtocol; frames: string[] }[] = [
  { protocol: "a_messages", frames: messagesFrames(TURN) },
  { protocol: "b_chat_completions", frames: chatFrames(TURN, { reasoningField: "reasoning_content" }) },
  { protocol: "d_chat_completions", frames: chatFrames(TURN, { reasoningField: "reasoning_content" }) },
  { protocol: "e_chat_completions", frames: chatFrames(TURN, { reasoningField: "reasoning" }) },
  { protocol: "b_responses", frames: responsesFrames(TURN) },
];

const toolParts = [
  { type: "tool_call", id: "call_1", name: "read_file", arguments: { path: "src/ä.ts", lines: [1, 2] } },
  { type: "tool_call", id: "call_2", name: "shell", arguments: { cmd: "ls -la" } },
];

describe.each(CASES)("$protocol decoder", ({ protocol, frames }) => {
  const bytes = bytesOf(frames);
  const whole = decodeChunks(protocol, [bytes]);

  test("assembles text, tool calls (arguments across chunks), reasoning and stop reason", () => {
    expect(whole.error).toBeNull();
    const a = whole.assembled;
    expect(a.stop_reason).toBe("tool_use");
    const text = a.parts.find((p) => p.type === "text");
    expect(text).toEqual({ type: "text", text: "Voilà: 🌍 世界" });
    expect(a.parts.filter((p) => p.type === "tool_call")).toEqual(toolParts as never);
    const deltas = whole.events.filter((e) => e.type === "tool_call_delta");
    expect(deltas.length).toBeGreaterThan(4);
    const reasoning = a.parts.find((p) => p.type === "reasoning");
    // Every chat variant keeps reasoning from either field (OpenAI-compatible servers differ).
    expect(reasoning?.text).toBe("Need the file → read it");
    if (protocol === "a_messages")
      expect(reasoning).toEqual({ type: "reasoning", text: TURN.reasoning!.text, replay: { dialect: "a_messages", block: { type: "thinking", thinking: TURN.reasoning!.text, signature: "sig_abc" } } });
    if (protocol === "b_responses")
      expect(reasoning).toMatchObject({ replay: { dialect: "b_responses", item: { type: "reasoning", id: "rs_1", encrypted_content: "enc_xyz" } } });
  });

  test("usage accounting", () => {
    const u = whole.assembled.usage;
    if (protocol === "a_messages") expect(u).toEqual({ input_tokens: 150, output_tokens: 42, cache_read_tokens: 30, cache_write_tokens: 20, reasoning_tokens: 0 });
    else expect(u).toEqual({ input_tokens: 100, output_tokens: 42, cache_read_tokens: 30, cache_write_tokens: 0, reasoning_tokens: 7 });
  });

  test("identical events when the stream is split at every byte boundary", () => {
    for (const chunks of everySplit(bytes)) {
      const r = decodeChunks(protocol, chunks);
      expect(r.error).toBeNull();
      expect(r.assembled).toEqual(whole.assembled);
    }
  });

  test("a stream cut before its terminal event is a retryable network error, partial kept", () => {
    const cut = decodeChunks(protocol, [bytesOf(frames.slice(0, Math.floor(frames.length * 0.6)))]);
    expect(cut.error).toBeInstanceOf(ProviderError);
    expect((cut.error as ProviderError).kind).toBe("network");
    expect((cut.error as ProviderError).code).toBe("stream_incomplete");
    expect(cut.assembled.parts.length).toBeGreaterThan(0);
  });

  test("invalid tool-call JSON is a typed error, not a crash", () => {
    const bad = { ...TURN, tool_calls: [{ id: "call_9", name: "x", arguments: '{"a":' }] };
    const f = protocol === "a_messages" ? messagesFrames(bad) : protocol === "b_responses" ? responsesFrames(bad) : chatFrames(bad);
    const r = decodeChunks(protocol, [bytesOf(f)]);
    expect(r.error).toBeInstanceOf(ProviderError);
    expect((r.error as ProviderError).kind).toBe("invalid_tool_arguments");
  });
});

describe("dialect specifics", () => {
  test("Messages: in-stream overloaded_error is a typed overloaded error", () => {
    const f = messagesFrames({ text: "partial answer" }).slice(0, 4);
    f.push(frame("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }));
    const r = decodeChunks("a_messages", [bytesOf(f)]);
    expect((r.error as ProviderError).kind).toBe("overloaded");
    expect((r.error as ProviderError).code).toBe("overloaded_error");
  });

  test("Messages: unknown event and delta types are ignored; empty tool input is {}", () => {
    const f = messagesFrames({ tool_calls: [{ id: "t1", name: "noargs", arguments: "" }] });
    f.splice(2, 0, frame("future_event", { type: "future_event", x: 1 }));
    f.splice(4, 0, frame("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation: {} } }));
    const r = decodeChunks("a_messages", [bytesOf(f)]);
    expect(r.error).toBeNull();
    expect(r.assembled.parts).toEqual([{ type: "tool_call", id: "t1", name: "noargs", arguments: {} }]);
  });

  test("Messages: message_stop without stop_reason is rejected", () => {
    const f = messagesFrames({ text: "hi" }).filter((x) => !x.startsWith("event: message_delta"));
    expect((decodeChunks("a_messages", [bytesOf(f)]).error as ProviderError).code).toBe("missing_stop_reason");
  });

  test("Messages: max_tokens and refusal stop reasons", () => {
    expect(decodeChunks("a_messages", [bytesOf(messagesFrames({ text: "x", stop: "max_tokens" }))]).assembled.stop_reason).toBe("max_tokens");
    expect(decodeChunks("a_messages", [bytesOf(messagesFrames({ text: "x", stop: "refusal" }))]).assembled.stop_reason).toBe("refusal");
  });

  test("Chat: [DONE] without finish_reason is rejected", () => {
    const f = chatFrames({ text: "hi" }).filter((x) => !x.includes('"finish_reason":"stop"'));
    expect((decodeChunks("b_chat_completions", [bytesOf(f)]).error as ProviderError).code).toBe("missing_finish_reason");
  });

  test("Chat: parallel tool calls interleaved by index", () => {
    const c = (delta: unknown) => frame(null, { id: "c", choices: [{ index: 0, delta, finish_reason: null }] });
    const f = [
      c({ role: "assistant" }),
      c({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } }] }),
      c({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "g", arguments: '{"y"' } }] }),
      c({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }),
      c({ tool_calls: [{ index: 1, function: { arguments: ":2}" } }] }),
      frame(null, { id: "c", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }),
      frame(null, "[DONE]"),
    ];
    const r = decodeChunks("b_chat_completions", [bytesOf(f)]);
    expect(r.error).toBeNull();
    expect(r.assembled.parts).toEqual([
      { type: "tool_call", id: "a", name: "f", arguments: { x: 1 } },
      { type: "tool_call", id: "b", name: "g", arguments: { y: 2 } },
    ]);
    expect(r.assembled.usage.input_tokens).toBe(0); // no include_usage chunk: usage stays zero, not invented
  });

  test("Chat: a tool_call index out of bounds is a protocol error, not a huge allocation", () => {
    const f = [frame(null, { id: "c", choices: [{ index: 0, delta: { tool_calls: [{ index: 1e9, id: "x", function: { name: "f", arguments: "{}" } }] }, finish_reason: null }] })];
    expect((decodeChunks("b_chat_completions", [bytesOf(f)]).error as ProviderError).code).toBe("invalid_tool_index");
  });

  test("Chat: finish_reason length maps to max_tokens; mid-stream error object is typed", () => {
    expect(decodeChunks("b_chat_completions", [bytesOf(chatFrames({ text: "x", stop: "length" }))]).assembled.stop_reason).toBe("max_tokens");
    const f = chatFrames({ text: "abc" }).slice(0, 2);
    f.push(frame(null, { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }));
    expect((decodeChunks("b_chat_completions", [bytesOf(f)]).error as ProviderError).kind).toBe("rate_limited");
  });

  test("Responses: incomplete maps to max_tokens; failed carries code and retry hint", () => {
    expect(decodeChunks("b_responses", [bytesOf(responsesFrames({ text: "x" }, { terminal: "incomplete" }))]).assembled.stop_reason).toBe("max_tokens");
    const f = responsesFrames({ text: "x" }).slice(0, 2);
    f.push(frame("response.failed", { type: "response.failed", sequence_number: 2, response: { error: { code: "rate_limit_exceeded", message: "Please try again in 1.5s" } } }));
    const e = decodeChunks("b_responses", [bytesOf(f)]).error as ProviderError;
    expect(e.kind).toBe("rate_limited");
    expect(e.retryAfterMs).toBe(1500);
    const ctx = responsesFrames({ text: "x" }).slice(0, 2);
    ctx.push(frame("response.failed", { type: "response.failed", sequence_number: 2, response: { error: { code: "context_length_exceeded", message: "too long" } } }));
    expect((decodeChunks("b_responses", [bytesOf(ctx)]).error as ProviderError).kind).toBe("context_length_exceeded");
  });

  test("Responses: out-of-order sequence numbers are rejected", () => {
    const f = responsesFrames({ text: "hello" });
    [f[3], f[4]] = [f[4]!, f[3]!];
    expect((decodeChunks("b_responses", [bytesOf(f)]).error as ProviderError).code).toBe("sequence_out_of_order");
  });
});
