// Discovered models: overlays of `models.<provider>/<id>` apply once the provider reports the model,
// reported values fill what the overlay leaves unset, and unusable reports are skipped with a reason.
import { afterEach, expect, test } from "bun:test";
import { resolveModels } from "../../src/config/models.ts";
import { ProblemList } from "../../src/config/problems.ts";
import type { AppConfig } from "../../src/config/schema.ts";
import { applyDiscoveredModels } from "../../src/providers/discovered-models.ts";
import { listProviderModels } from "../../src/providers/models-list.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";

let fake: ProviderFake | null = null;
afterEach(async () => fake?.stop());

function table(config: AppConfig) {
  const problems = new ProblemList();
  const t = resolveModels(config, problems);
  expect(problems.errors).toEqual([]);
  return t;
}

const LOCAL_CONFIG = (url: string): AppConfig =>
  ({
    providers: { local: { kind: { type: "custom_b_compatible" }, url, auth: { type: "no_auth" } } },
    models: {
      "local/qwen-coder": { supports_vision: true, request_option_defaults: { temperature: "0.1" } },
      "local/tiny": { class: "nano" },
      "local/gone": { enabled: false },
      "local/later": { supports_vision: true },
    },
  }) as AppConfig;

test("listing then applying: overlays take effect only once reported, over the reported values", async () => {
  fake = startProviderFake("b_chat_completions", [], {
    models: [
      [
        { id: "qwen-coder", context_length: 32768, max_tokens: 4096 },
        { id: "tiny", context_length: 8000 },
        { id: "gone", context_length: 4096 },
        { id: "mystery" },
        { id: "big", context_length: 131072 },
      ],
    ],
  });
  const before = table(LOCAL_CONFIG(fake.base));
  expect([...before.models.keys()]).toEqual([]); // nothing before the provider reports
  expect(before.pending.map((p) => p.key)).toEqual(["local/qwen-coder", "local/tiny", "local/gone", "local/later"]);

  const provider = resolveProvider("local", { kind: { type: "custom_b_compatible" }, url: fake.base, auth: { type: "no_auth" } });
  const reported = await listProviderModels(provider, { clock: new FakeClock() });
  const { table: after, skipped } = applyDiscoveredModels(before, "local", reported);

  const qwen = after.models.get("local/qwen-coder")!;
  expect(qwen).toMatchObject({
    provider: "local",
    provider_name: "qwen-coder",
    class: "full",
    context_window: 32768,
    max_tokens: 4096,
    supports_vision: true,
    request_option_defaults: { temperature: "0.1" },
  });
  expect(qwen.max_output_tokens_per_turn).toBeLessThanOrEqual(4096);
  expect(qwen.derived).toContain("max_output_tokens_per_turn");
  expect(after.models.get("local/tiny")).toMatchObject({ class: "nano", context_window: 8000, provider_name: "tiny" });
  expect(after.models.get("local/big")).toMatchObject({ context_window: 131072, supports_vision: false });
  expect(after.models.has("local/gone")).toBe(false);
  expect(after.models.has("local/mystery")).toBe(false);
  expect(skipped).toEqual([
    { key: "local/gone", reason: 'disabled by models["local/gone"].enabled: false' },
    { key: "local/mystery", reason: `the provider reports no context window for 'mystery'; set models["local/mystery"].context_window` },
  ]);
  // Not reported yet: still pending; the input table is unchanged.
  expect(after.pending.map((p) => p.key)).toEqual(["local/later"]);
  expect(before.pending).toHaveLength(4);
  expect(before.models.size).toBe(0);
});

test("an invalid overlay is not offered; the reason names the field", () => {
  const t = table({
    providers: { local: { kind: { type: "custom_b_compatible" }, url: "http://127.0.0.1:1/v1" } },
    models: { "local/r1": { reasoning: { type: "effort", effort_set: "std", can_disable: false, levels: ["low", "high"], default_level: "medium" } } },
  } as AppConfig);
  const { table: after, skipped } = applyDiscoveredModels(t, "local", [{ id: "r1", display_name: null, context_window: 64000, max_output_tokens: null }]);
  expect(after.models.has("local/r1")).toBe(false);
  expect(skipped).toHaveLength(1);
  expect(skipped[0]!.reason).toContain(`models["local/r1"].reasoning.default_level: 'medium' is not one of the levels`);
});

test("a reported ceiling below an authored per-turn limit does not invalidate the overlay", () => {
  const t = table({
    providers: { local: { kind: { type: "custom_b_compatible" }, url: "http://127.0.0.1:1/v1" } },
    models: { "local/m": { max_output_tokens_per_turn: 16000 } },
  } as AppConfig);
  const { table: after } = applyDiscoveredModels(t, "local", [{ id: "m", display_name: null, context_window: 128000, max_output_tokens: 8192 }]);
  expect(after.models.get("local/m")).toMatchObject({ max_output_tokens_per_turn: 16000, max_tokens: null });
});

test("a catalog model the provider also reports is not offered twice; other providers' overlays stay pending", () => {
  const t = table({
    providers: {
      main: { kind: { type: "catalog", name: "a" }, url: "http://127.0.0.1:1" },
      local: { kind: { type: "custom_b_compatible" }, url: "http://127.0.0.1:1/v1" },
    },
    models: { "local/x": { supports_vision: true } },
  } as AppConfig);
  const { table: after, skipped } = applyDiscoveredModels(t, "main", [
    { id: "claude-sonnet-5", display_name: null, context_window: 1000, max_output_tokens: null },
    { id: "x", display_name: null, context_window: 1000, max_output_tokens: null },
  ]);
  // The catalog model already has the discovered key; the catalog's facts stay.
  expect(skipped).toEqual([]);
  expect(after.models.get("main/claude-sonnet-5")).toMatchObject({ origin: "catalog", context_window: 1_000_000 });
  expect([...after.models.values()].filter((m) => m.provider_name === "claude-sonnet-5")).toHaveLength(1);
  expect(after.models.get("main/x")).toMatchObject({ provider: "main", provider_name: "x", supports_vision: false });
  expect(after.pending.map((p) => p.key)).toEqual(["local/x"]);
});
