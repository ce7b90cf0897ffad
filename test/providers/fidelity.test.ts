// The fakes must be faithful: each fake's stream is fed to the official SDK's stream helper and must
// be accepted with the same content our client assembles. Negative controls: malformed streams that
// our parser must reject (some of which the SDKs accept, which is why the fakes check themselves).
import { afterEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { ResponseAssembler } from "../../src/providers/assemble.ts";
import { streamOnce } from "../../src/providers/client.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import type { ProviderRequest } from "../../src/providers/request.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import type { ProviderSettings } from "../../src/providers/settings.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";
import { type TurnSpec, frame } from "../fakes/turn-spec.ts";
import { messagesFrames } from "../fakes/wire-a-messages.ts";
import { chatFrames } from "../fakes/wire-b-chat.ts";
import { responsesFrames } from "../fakes/wire-b-responses.ts";

const TURN: TurnSpec = {
  reasoning: { text: "think about it", signature: "sig_1", encrypted: "enc_1", id: "rs_1" },
  text: "Hello, wörld 🌍",
  tool_calls: [{ id: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' }],
  usage: { input: 12, output: 34, cache_read: 5, reasoning: 3 },
  chunk: 4,
};

const REQUEST: ProviderRequest = {
  model: "fake-model",
  system: "You are terse.",
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [{ name: "read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } } } }],
  max_output_tokens: 1000,
  stop_sequences: [],
  reasoning: { effort: "low", enabled: true, budget_tokens: 500 },
  request_options: {},
};

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});
const fake = (...args: Parameters<typeof startProviderFake>) => {
  const f = startProviderFake(...args);
  fakes.push(f);
  return f;
};

async function ours(settings: ProviderSettings, request = REQUEST) {
  const provider = resolveProvider("fake", settings);
  const assembler = new ResponseAssembler();
  for await (const e of streamOnce(provider, request, { clock: new FakeClock() })) assembler.push(e);
  return assembler.snapshot();
}

describe("fidelity: official SDKs accept each fake's stream", () => {
  test("Messages fake vs @anthropic-ai/sdk messages.stream", async () => {
    const f = fake("a_messages", [{ kind: "turn", turn: TURN }, { kind: "turn", turn: TURN }]);
    const client = new Anthropic({ apiKey: "sk-test-key-000000000000", baseURL: f.url, maxRetries: 0 });
    const msg = await client.messages.stream({ model: "fake-model", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.content).toEqual([
      { type: "thinking", thinking: "think about it", signature: "sig_1" },
      { type: "text", text: "Hello, wörld 🌍" } as never,
      { type: "tool_use", id: "call_1", name: "read_file", input: { path: "a.txt" } } as never,
    ]);
    expect(msg.usage.output_tokens).toBe(34);
    const mine = await ours({ kind: { type: "custom_a_compatible" }, url: f.base, auth: { type: "static_key", key: "sk-test-key-000000000000" } });
    expect(mine.parts).toEqual([
      { type: "reasoning", text: "think about it", replay: { dialect: "a_messages", block: { type: "thinking", thinking: "think about it", signature: "sig_1" } } },
      { type: "text", text: "Hello, wörld 🌍" },
      { type: "tool_call", id: "call_1", name: "read_file", arguments: { path: "a.txt" } },
    ]);
    expect(f.violations).toEqual([]);
    expect(f.requests[1]!.headers["x-api-key"]).toBe("sk-test-key-000000000000");
    expect(f.requests[1]!.headers["anthropic-version"]).toBe("2023-06-01");
  });

  test("Chat Completions fake vs openai chat.completions.stream", async () => {
    const f = fake("b_chat_completions", [{ kind: "turn", turn: TURN }, { kind: "turn", turn: TURN }]);
    const client = new OpenAI({ apiKey: "sk-test-key-000000000000", baseURL: f.base, maxRetries: 0 });
    const done = await client.chat.completions
      .stream({ model: "fake-model", messages: [{ role: "user", content: "hi" }], stream_options: { include_usage: true } })
      .finalChatCompletion();
    const choice = done.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Hello, wörld 🌍");
    expect(choice.message.tool_calls?.[0]).toMatchObject({ id: "call_1", function: { name: "read_file", arguments: '{"path":"a.txt"}' } });
    expect(done.usage?.completion_tokens).toBe(34);
    const mine = await ours({ kind: { type: "custom_b_compatible" }, url: f.base, auth: { type: "static_key", key: "sk-test-key-000000000000" } });
    expect(mine.parts.filter((p) => p.type !== "reasoning")).toEqual([
      { type: "text", text: "Hello, wörld 🌍" },
      { type: "tool_call", id: "call_1", name: "read_file", arguments: { path: "a.txt" } },
    ]);
    expect(f.violations).toEqual([]);
    expect(f.requests[1]!.body.stream_options).toEqual({ include_usage: true });
    expect(f.requests[1]!.headers.authorization).toBe("Bearer sk-test-key-000000000000");
  });

  test("Responses fake vs openai responses.stream", async () => {
    const f = fake("b_responses", [{ kind: "turn", turn: TURN }, { kind: "turn", turn: TURN }]);
    const client = new OpenAI({ apiKey: "sk-test-key-000000000000", baseURL: f.base, maxRetries: 0 });
    const final = await client.responses.stream({ model: "fake-model", input: "hi" }).finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toBe("Hello, wörld 🌍");
    expect(final.output.find((o) => o.type === "function_call")).toMatchObject({ call_id: "call_1", arguments: '{"path":"a.txt"}' });
    expect(final.output.find((o) => o.type === "reasoning")).toMatchObject({ id: "rs_1", encrypted_content: "enc_1" });
    const mine = await ours({ kind: { type: "custom_b_responses" }, url: f.base, auth: { type: "static_key", key: "sk-test-key-000000000000" } });
    expect(mine.parts[0]).toMatchObject({ type: "reasoning", replay: { dialect: "b_responses", item: { id: "rs_1", encrypted_content: "enc_1" } } });
    expect(mine.parts.slice(1)).toEqual([
      { type: "text", text: "Hello, wörld 🌍" },
      { type: "tool_call", id: "call_1", name: "read_file", arguments: { path: "a.txt" } },
    ]);
    const sent = f.requests[1]!.body;
    expect(sent.store).toBe(false);
    expect(sent.include).toEqual(["reasoning.encrypted_content"]);
    expect(f.violations).toEqual([]);
  });
});

describe("negative controls: malformed streams are rejected by our parser", () => {
  const cases: { name: string; dialect: "a_messages" | "b_chat_completions" | "b_responses"; frames: string[]; sdkAccepts: boolean; code: string }[] = [
    {
      name: "Messages stream without message_stop",
      dialect: "a_messages",
      frames: messagesFrames({ text: "hi" }).filter((f) => !f.startsWith("event: message_stop")),
      sdkAccepts: false,
      code: "stream_incomplete",
    },
    {
      name: "Chat stream without [DONE]",
      dialect: "b_chat_completions",
      frames: chatFrames({ text: "hi" }).filter((f) => !f.includes("[DONE]")),
      sdkAccepts: true,
      code: "stream_incomplete",
    },
    {
      name: "Chat stream whose data is not JSON",
      dialect: "b_chat_completions",
      frames: [chatFrames({ text: "hi" })[0]!, frame(null, "{not json"), ...chatFrames({ text: "hi" }).slice(1)],
      sdkAccepts: false,
      code: "invalid_json",
    },
    {
      name: "Responses stream that closes before a terminal event",
      dialect: "b_responses",
      frames: responsesFrames({ text: "hi" }).filter((f) => !f.startsWith("event: response.completed")),
      sdkAccepts: true,
      code: "stream_incomplete",
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const f = fake(c.dialect, [
        { kind: "frames", frames: c.frames },
        { kind: "frames", frames: c.frames },
      ]);
      const kind = c.dialect === "a_messages" ? "custom_a_compatible" : c.dialect === "b_chat_completions" ? "custom_b_compatible" : "custom_b_responses";
      const err = await ours({ kind: { type: kind }, url: f.base, auth: { type: "no_auth" } }).catch((e) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).code).toBe(c.code);
      // What the official SDK does with the same bytes (documents why the fakes check themselves).
      let sdkOk = true;
      try {
        if (c.dialect === "a_messages")
          await new Anthropic({ apiKey: "k", baseURL: f.url, maxRetries: 0 }).messages.stream({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).finalMessage();
        else if (c.dialect === "b_chat_completions")
          await new OpenAI({ apiKey: "k", baseURL: f.base, maxRetries: 0 }).chat.completions.stream({ model: "m", messages: [{ role: "user", content: "x" }] }).finalChatCompletion();
        else await new OpenAI({ apiKey: "k", baseURL: f.base, maxRetries: 0 }).responses.stream({ model: "m", input: "x" }).finalResponse();
      } catch {
        sdkOk = false;
      }
      expect(sdkOk).toBe(c.sdkAccepts);
    });
  }
});
