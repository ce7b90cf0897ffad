// Request bodies per dialect: tool results answered, thinking/reasoning replayed verbatim, cache
// breakpoints within limits, variant differences, and header precedence on the wire.
import { afterEach, describe, expect, test } from "bun:test";
import { buildMessagesBody } from "../../src/providers/dialects/a-messages.ts";
import { buildChatBody } from "../../src/providers/dialects/b-chat-completions.ts";
import { buildResponsesBody } from "../../src/providers/dialects/b-responses.ts";
import { streamOnce } from "../../src/providers/client.ts";
import { PROTOCOL_INFO } from "../../src/providers/protocols.ts";
import type { ProviderRequest } from "../../src/providers/request.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";

const thinking = { type: "thinking" as const, thinking: "hmm", signature: "sig" };
const reasoningItem = { type: "reasoning" as const, id: "rs_1", summary: [{ type: "summary_text", text: "s" }], encrypted_content: "enc" };
const req: ProviderRequest = {
  model: "m",
  system: "sys",
  messages: [
    { role: "user", content: [{ type: "text", text: "one" }] },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "hmm", replay: { dialect: "a_messages", block: thinking } },
        { type: "reasoning", text: "s", replay: { dialect: "b_responses", item: reasoningItem } },
        { type: "text", text: "calling" },
        { type: "tool_call", id: "c1", name: "t", arguments: { a: 1 } },
      ],
    },
    { role: "tool_results", results: [{ call_id: "c1", output: "out", is_error: true }] },
    { role: "user", content: [{ type: "text", text: "two" }] },
  ],
  tools: [{ name: "t", description: "d", input_schema: { type: "object" } }],
  max_output_tokens: 100,
  stop_sequences: ["END"],
  reasoning: { effort: "high", enabled: false },
  request_options: { temperature: "0.2" as string },
};

test("Messages body: thinking verbatim, tool_result merged into one user turn, <=4 breakpoints in order", () => {
  const body = buildMessagesBody(req, "breakpoints") as any;
  expect(body.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
  expect(body.messages[1].content[0]).toEqual(thinking);
  expect(body.messages[2].content[0]).toEqual({ type: "tool_result", tool_use_id: "c1", content: "out", is_error: true });
  const marks = [body.tools.at(-1).cache_control, body.system[0].cache_control, body.messages[2].content.at(-1).cache_control, body.messages[0].content.at(-1).cache_control];
  expect(marks.every((m) => m?.type === "ephemeral")).toBe(true);
  expect(JSON.stringify(body).match(/cache_control/g)!.length).toBe(4);
  expect(JSON.stringify(buildMessagesBody(req, "provider_managed"))).not.toContain("cache_control");
  expect(body.stop_sequences).toEqual(["END"]);
  expect(body.temperature).toBe(0.2);
});

test("Chat body: variant max-tokens field and stream usage; tool messages answer every call", () => {
  const b = buildChatBody(req, PROTOCOL_INFO.b_chat_completions) as any;
  expect(b.max_completion_tokens).toBe(100);
  expect(b.stream_options).toEqual({ include_usage: true });
  expect(b.reasoning_effort).toBe("high");
  expect(b.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
  expect(b.messages[2].tool_calls).toEqual([{ id: "c1", type: "function", function: { name: "t", arguments: '{"a":1}' } }]);
  const f = buildChatBody(req, PROTOCOL_INFO.f_chat_completions) as any;
  expect(f.max_tokens).toBe(100);
  expect(f.stream_options).toBeUndefined();
});

test("Responses body: reasoning item verbatim, not stored, encrypted content included", () => {
  const b = buildResponsesBody({ ...req, reasoning: { effort: "low", enabled: true } }) as any;
  expect(b.store).toBe(false);
  expect(b.include).toEqual(["reasoning.encrypted_content"]);
  expect(b.reasoning).toEqual({ effort: "low", summary: "auto" });
  expect(b.input.find((i: any) => i.type === "reasoning")).toEqual(reasoningItem);
  expect(b.input.find((i: any) => i.type === "function_call_output")).toEqual({ type: "function_call_output", call_id: "c1", output: "out" });
  const stored = buildResponsesBody({ ...req, reasoning: { effort: "low", enabled: true }, request_options: { store: true } }) as any;
  expect(stored.include).toBeUndefined();
});

describe("request_option_defaults carry the type each API gives the option (the config holds strings)", () => {
  const withOptions = (request_options: Record<string, boolean | string>): ProviderRequest => ({ ...req, request_options });
  const rejects = (build: () => unknown, text: string) => {
    const e = (() => {
      try {
        build();
      } catch (error) {
        return error;
      }
      throw new Error("expected the body build to fail");
    })() as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.kind).toBe("invalid_request");
    expect(e.message).toContain(text);
  };

  test("Messages: numbers, integers and JSON objects; a non-number is refused naming the option", () => {
    const b = buildMessagesBody(withOptions({ temperature: "0.7", top_k: "40", metadata: '{"user_id":"u-1"}', service_tier: "auto" }), "provider_managed") as any;
    expect(b.temperature).toBe(0.7);
    expect(b.top_k).toBe(40);
    expect(b.metadata).toEqual({ user_id: "u-1" });
    expect(b.service_tier).toBe("auto");
    expect(JSON.parse(JSON.stringify(b)).temperature).toBe(0.7);
    rejects(() => buildMessagesBody(withOptions({ temperature: "warm" }), "provider_managed"), 'request_option_defaults.temperature is "warm", but the Messages API expects a number');
    rejects(() => buildMessagesBody(withOptions({ top_k: "4.5" }), "provider_managed"), "expects an integer");
  });

  test("Chat Completions: penalties and seed are numbers, string options stay strings, booleans stay booleans", () => {
    const b = buildChatBody(withOptions({ temperature: "0", seed: "1234", presence_penalty: "-0.5", user: "42", parallel_tool_calls: false, store: "true", tool_choice: "required" }), PROTOCOL_INFO.h_chat_completions) as any;
    expect(b).toMatchObject({ temperature: 0, seed: 1234, presence_penalty: -0.5, user: "42", parallel_tool_calls: false, store: true, tool_choice: "required" });
    // A vendor option the table does not know: written as a number, sent as one; other text unchanged.
    const v = buildChatBody(withOptions({ typical_p: "0.95", guided_choice_mode: "strict" }), PROTOCOL_INFO.h_chat_completions) as any;
    expect(v.typical_p).toBe(0.95);
    expect(v.guided_choice_mode).toBe("strict");
    rejects(() => buildChatBody(withOptions({ logit_bias: "{oops" }), PROTOCOL_INFO.b_chat_completions), "expects valid JSON");
    rejects(() => buildChatBody(withOptions({ seed: true }), PROTOCOL_INFO.b_chat_completions), "request_option_defaults.seed is true");
    rejects(() => buildChatBody(withOptions({ stream: false }), PROTOCOL_INFO.b_chat_completions), "cannot be set");
  });

  test("Responses: store as text still switches storage; text/reasoning objects and max_tool_calls typed", () => {
    const b = buildResponsesBody({ ...withOptions({ store: "true", text: '{"verbosity":"low"}', max_tool_calls: "8", top_p: "0.9" }), reasoning: { effort: "low", enabled: true } }) as any;
    expect(b.store).toBe(true);
    expect(b.include).toBeUndefined();
    expect(b.text).toEqual({ verbosity: "low" });
    expect(b.max_tool_calls).toBe(8);
    expect(b.top_p).toBe(0.9);
    rejects(() => buildResponsesBody(withOptions({ input: "x" })), "the agent builds 'input'");
    rejects(() => buildResponsesBody(withOptions({ store: "yes" })), "expects true or false");
  });
});

let fake: ProviderFake | null = null;
afterEach(async () => fake?.stop());

test("on the wire: configured headers sent, but the agent's per-request headers win", async () => {
  fake = startProviderFake("a_messages", [{ kind: "turn", turn: { text: "ok" } }]);
  const provider = resolveProvider("h", {
    kind: { type: "custom_a_compatible" },
    url: fake.base,
    auth: { type: "static_key", key: "real-key-123456" },
    headers: { "x-api-key": "configured-key", "content-type": "text/plain", "x-team": "blue", "anthropic-version": "2099-01-01" },
  });
  for await (const _ of streamOnce(provider, { ...req, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }, { clock: new FakeClock() }));
  const h = fake.requests[0]!.headers;
  expect(h["x-api-key"]).toBe("real-key-123456");
  expect(h["content-type"]).toBe("application/json");
  expect(h["x-team"]).toBe("blue");
  expect(h["anthropic-version"]).toBe("2099-01-01");
  expect(fake.requests[0]!.body.temperature).toBe(0.2); // the JSON on the wire holds a number
  expect(fake.violations).toEqual([]);
});

describe("tool_choice", () => {
  const info = PROTOCOL_INFO.b_chat_completions;
  test("maps to each dialect's wire form, and is left out without tools or when absent", () => {
    const none = { ...req, tool_choice: { type: "none" as const } };
    const named = { ...req, tool_choice: { type: "tool" as const, name: "t" } };
    const required = { ...req, tool_choice: { type: "required" as const } };
    expect(buildMessagesBody(none, "provider_managed").tool_choice).toEqual({ type: "none" });
    expect(buildMessagesBody(named, "provider_managed").tool_choice).toEqual({ type: "tool", name: "t" });
    expect(buildMessagesBody(required, "provider_managed").tool_choice).toEqual({ type: "any" });
    expect(buildChatBody(none, info).tool_choice).toBe("none");
    expect(buildChatBody(named, info).tool_choice).toEqual({ type: "function", function: { name: "t" } });
    expect(buildResponsesBody(none).tool_choice).toBe("none");
    expect(buildResponsesBody(named).tool_choice).toEqual({ type: "function", name: "t" });
    expect(buildChatBody(req, info).tool_choice).toBeUndefined();
    expect(buildMessagesBody({ ...none, tools: [] }, "provider_managed").tool_choice).toBeUndefined();
    expect(buildResponsesBody({ ...none, tools: [] }).tool_choice).toBeUndefined();
  });
});
