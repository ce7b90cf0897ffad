// On the wire: the User-Agent names the agent, Anthropic betas follow the family, and a 400 names the
// provider, the model, the vendor's message and the config key to change; it is not retried.
import { afterEach, expect, test } from "bun:test";
import { callProvider } from "../../src/providers/call.ts";
import { listProviderModels } from "../../src/providers/models-list.ts";
import { streamOnce } from "../../src/providers/client.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import type { ProviderRequest } from "../../src/providers/request.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import { VERSION } from "../../src/version.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";

let fake: ProviderFake | null = null;
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

const KEY = { type: "static_key" as const, key: "sk-ant-test-0123456789" };

const request = (model: string, over: Partial<ProviderRequest> = {}): ProviderRequest => ({
  model,
  system: "sys",
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
  max_output_tokens: 32000,
  stop_sequences: [],
  reasoning: { effort: null, enabled: true },
  request_options: {},
  ...over,
});

async function drain(events: AsyncGenerator<unknown>): Promise<void> {
  for await (const _ of events);
}

test("every request names the agent and its version; a configured User-Agent wins", async () => {
  fake = startProviderFake("a_messages", [{ kind: "turn", turn: { text: "ok" } }, { kind: "turn", turn: { text: "ok" } }]);
  const provider = resolveProvider("a", { kind: { type: "custom_a_compatible" }, url: fake.base, auth: KEY });
  await drain(streamOnce(provider, request("claude-sonnet-5"), { clock: new FakeClock() }));
  expect(fake.requests[0]!.headers["user-agent"]).toBe(`agent/${VERSION}`);
  const custom = resolveProvider("a", { kind: { type: "custom_a_compatible" }, url: fake.base, auth: KEY, headers: { "User-Agent": "corp-proxy-client/2" } });
  await drain(streamOnce(custom, request("claude-sonnet-5"), { clock: new FakeClock() }));
  expect(fake.requests[1]!.headers["user-agent"]).toBe("corp-proxy-client/2");
});

test("listing a provider's models names the agent too", async () => {
  fake = startProviderFake("b_chat_completions", [], { models: [[{ id: "m-1", context_length: 1000 }]] });
  const provider = resolveProvider("c", { kind: { type: "custom_b_compatible" }, url: fake.base, auth: KEY });
  expect((await listProviderModels(provider, { clock: new FakeClock() })).map((m) => m.id)).toEqual(["m-1"]);
  expect(fake.requests.at(-1)!.headers["user-agent"]).toBe(`agent/${VERSION}`);
});

test("Claude 4.0-4.5 with thinking get the interleaved-thinking beta (added to configured betas); Claude 5 and no-thinking requests none", async () => {
  const turns = Array.from({ length: 4 }, () => ({ kind: "turn" as const, turn: { text: "ok" } }));
  fake = startProviderFake("a_messages", turns);
  const plain = resolveProvider("a", { kind: { type: "custom_a_compatible" }, url: fake.base, auth: KEY });
  const withBeta = resolveProvider("a", { kind: { type: "custom_a_compatible" }, url: fake.base, auth: KEY, headers: { "anthropic-beta": "context-1m-2025-08-07" } });
  const clock = new FakeClock();
  await drain(streamOnce(plain, request("claude-sonnet-4-5"), { clock }));
  await drain(streamOnce(withBeta, request("claude-opus-4-1"), { clock }));
  await drain(streamOnce(plain, request("claude-sonnet-5"), { clock }));
  await drain(streamOnce(plain, request("claude-sonnet-4-5", { reasoning: null }), { clock }));
  const betas = fake.requests.map((r) => r.headers["anthropic-beta"] ?? null);
  expect(betas).toEqual(["interleaved-thinking-2025-05-14", "context-1m-2025-08-07,interleaved-thinking-2025-05-14", null, null]);
  expect(fake.violations).toEqual([]);
});

test("a 400 names the provider, the model, the vendor's message and the config key; it is tried once", async () => {
  const vendorMessage = '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
  fake = startProviderFake("a_messages", [
    { kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: vendorMessage } }, headers: { "x-should-retry": "true" } },
    { kind: "turn", turn: { text: "never reached" } },
  ]);
  const provider = resolveProvider("corp-claude", { kind: { type: "custom_a_compatible" }, url: fake.base, auth: KEY });
  const events = callProvider({
    provider,
    retry: { max_retries: 3, base_delay_ms: 1, max_computed_delay_ms: 1 },
    deps: { clock: new FakeClock() },
    buildRequest: () => request("claude-sonnet-5", { model_config: { key: "corp-claude/sonnet", api: null } }),
  });
  const error = await drain(events).then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  const e = error as ProviderError;
  expect(e.status).toBe(400);
  expect(e.message).toContain("provider 'corp-claude' refused the request for model 'claude-sonnet-5'");
  expect(e.message).toContain(vendorMessage);
  expect(e.message).toContain("models.corp-claude/sonnet.api.thinking");
  expect(e.message).not.toContain(KEY.key);
  expect(fake.requests).toHaveLength(1);
});
