import { afterEach, expect, test } from "bun:test";
import { ProviderError } from "../../src/providers/errors.ts";
import { listProviderModels } from "../../src/providers/models-list.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";

let fake: ProviderFake | null = null;
afterEach(async () => fake?.stop());

test("lists models from the same base as requests, following pages, with auth", async () => {
  fake = startProviderFake("a_messages", [], {
    models: [[{ id: "m-1", display_name: "Model One", max_input_tokens: 200000 }], [{ id: "m-2", context_window: 32000, max_tokens: 4096 }, { nope: true }]],
  });
  const provider = resolveProvider("p", { kind: { type: "custom_a_compatible" }, url: fake.base, auth: { type: "static_key", key: "key-abcdef123" } });
  const models = await listProviderModels(provider, { clock: new FakeClock() });
  expect(models).toEqual([
    { id: "m-1", display_name: "Model One", context_window: 200000, max_output_tokens: null },
    { id: "m-2", display_name: null, context_window: 32000, max_output_tokens: 4096 },
  ]);
  expect(fake.requests.map((r) => r.path)).toEqual(["/v1/models", "/v1/models"]);
  expect(fake.requests[0]!.headers["x-api-key"]).toBe("key-abcdef123");
});

test("chat-style base lists at <base>/models; HTTP errors are typed and keyless", async () => {
  fake = startProviderFake("b_chat_completions", [], { models: [[{ id: "gpt-x", context_length: 128000 }]] });
  const ok = resolveProvider("c", { kind: { type: "custom_b_compatible" }, url: fake.base, auth: { type: "no_auth" } });
  expect((await listProviderModels(ok, { clock: new FakeClock() })).map((m) => m.context_window)).toEqual([128000]);
  const wrong = resolveProvider("c", { kind: { type: "custom_b_compatible" }, url: `${fake.url}/v2`, auth: { type: "static_key", key: "key-abcdef123" } });
  const e = await listProviderModels(wrong, { clock: new FakeClock() }).catch((x) => x);
  expect(e).toBeInstanceOf(ProviderError);
  expect(e.status).toBe(404);
  expect(e.message).not.toContain("key-abcdef123");
});
