// Gemini's OpenAI-compatible endpoint attaches a thought signature to each function call
// (`extra_content.google.thought_signature`) and refuses the next request of the turn without it (Gemini 3
// models). The signature is kept with the call, in the journal too, and sent back to the model that made it;
// another model never sees it.
import { afterEach, expect, test } from "bun:test";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import { makeProject, startSession } from "./harness.ts";

let fake: ProviderFake | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

const SIGNATURE = { google: { thought_signature: "CiQBjz1rX0sig-of-the-first-call==" } };

function config(base: string, model = "gemini-3.1-pro-preview"): string {
  return `providers:
  gem: { kind: { type: custom_b_compatible }, url: "${base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  pro: { provider: gem, provider_name: ${model}, class: full, context_window: 100000 }
  other: { provider: gem, provider_name: some-other-model, class: mini, context_window: 100000 }
defaults: { full: pro, mini: other }
default_permission_matcher: bypass
`;
}

const script: FakeStep[] = [
  { kind: "turn", turn: { tool_calls: [{ id: "call_a", name: "glob", arguments: JSON.stringify({ pattern: "*.txt" }), extra_content: SIGNATURE }] } },
  { kind: "turn", turn: { text: "Found it." } },
];

const assistantCalls = (body: any) => body.messages.filter((m: any) => m.role === "assistant").flatMap((m: any) => m.tool_calls ?? []);

test("the next request carries each call's extra_content back, as the model sent it", async () => {
  fake = startProviderFake("b_chat_completions", script);
  const p = makeProject(config(fake.base), { "a.txt": "x\n" });
  const r = await startSession(p);
  r.session.submit({ text: "find the text files" });
  await r.session.idle();
  expect(fake.requests).toHaveLength(2);
  expect(assistantCalls(fake.requests[1]!.body)).toEqual([expect.objectContaining({ id: "call_a", extra_content: SIGNATURE })]);
});

test("the signature goes back to the model that made it, and to no other", async () => {
  const { buildChatBody } = await import("../../src/providers/dialects/b-chat-completions.ts");
  const request = (model: string) => ({
    model,
    system: null,
    messages: [{ role: "assistant" as const, content: [{ type: "tool_call" as const, id: "call_a", name: "glob", arguments: {}, replay: { dialect: "b_chat_completions" as const, model: "gemini-3.1-pro-preview", extra_content: SIGNATURE } }] }],
    tools: [],
    max_output_tokens: null,
    stop_sequences: [],
    reasoning: null,
    request_options: {},
  });
  const info = { streamUsage: true, maxTokensField: "max_tokens" } as never;
  expect(assistantCalls(buildChatBody(request("gemini-3.1-pro-preview"), info))[0]).toMatchObject({ extra_content: SIGNATURE });
  expect(assistantCalls(buildChatBody(request("gpt-5.5"), info))[0]).not.toHaveProperty("extra_content");
});
