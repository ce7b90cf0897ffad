// A catalog provider named in a config file runs on the catalog's default models, as a key alone does
// (issue 33 finding 6): without this, `providers.openai` with no `defaults` ran on the first full model
// of the table (`openai/gpt-4`). What the config sets always wins.
import { describe, expect, test } from "bun:test";
import { configEnv, problemLines } from "../helpers/config-env.ts";
import { CATALOG_PROVIDERS } from "../../src/providers/catalog.ts";
import { providersFromEnv } from "../../src/providers/env-providers.ts";

const provider = (key: string, name: string, url?: string) =>
  `  ${key}: { kind: { type: catalog, name: ${name} }, auth: { type: static_key, key: sk-test-abc }${url ? `, url: "${url}"` : ""} }\n`;

function load(yaml: string) {
  const c = configEnv();
  c.globalFile(yaml);
  const result = c.load();
  if (!result.ok) throw new Error(problemLines(result, "error").join("\n"));
  return result;
}

describe("defaults from the catalog when the config names none", () => {
  test("providers.openai alone: the catalog's full, mini and nano, as the key-only path chooses", () => {
    const r = load(`providers:\n${provider("openai", "openai")}`);
    expect(r.defaults.full).toEqual({ model: "openai/gpt-5.5", effort: "medium", source: "catalog:openai" });
    expect(r.defaults.mini).toEqual({ model: "openai/gpt-5.4-mini", effort: "medium", source: "catalog:openai" });
    expect(r.defaults.nano).toEqual({ model: "openai/gpt-5.4-nano", effort: "medium", source: "catalog:openai" });
  });

  test("every catalog provider with defaults: the same models whether configured by a file or by its key", () => {
    for (const entry of CATALOG_PROVIDERS) {
      if (!entry.defaults || entry.env.length === 0) continue;
      const r = load(`providers:\n${provider(entry.name, entry.name, entry.url === null ? (entry.name === "azure" ? "https://example.invalid/openai/v1" : "https://example.invalid/anthropic") : undefined)}`);
      const env = { [entry.env[0]!]: "sk-test-abc", ...(entry.baseUrlEnv && entry.url === null ? { [entry.baseUrlEnv]: "https://example.invalid", ANTHROPIC_FOUNDRY_RESOURCE: "r" } : {}) };
      const fromKey = providersFromEnv(env);
      // Providers whose key does not choose on its own (GITHUB_TOKEN, HF_TOKEN) have no key-only path.
      const keyDefaults = entry.autoDetect ? fromKey?.defaults : { full: `${entry.name}/${entry.defaults.full}`, ...(entry.defaults.mini ? { mini: `${entry.name}/${entry.defaults.mini}` } : {}), ...(entry.defaults.nano ? { nano: `${entry.name}/${entry.defaults.nano}` } : {}) };
      expect({ provider: entry.name, full: r.defaults.full?.model, source: r.defaults.full?.source }).toEqual({ provider: entry.name, full: keyDefaults!.full, source: `catalog:${entry.name}` });
      expect({ provider: entry.name, mini: r.defaults.mini?.model }).toEqual({ provider: entry.name, mini: keyDefaults!.mini ?? keyDefaults!.full });
      expect({ provider: entry.name, nano: r.defaults.nano?.model }).toEqual({ provider: entry.name, nano: keyDefaults!.nano ?? keyDefaults!.mini ?? keyDefaults!.full });
    }
  });

  test("the provider's own key names its models; the first catalog provider with defaults in the file's order wins", () => {
    const r = load(`providers:\n${provider("local", "ollama")}${provider("work", "anthropic")}${provider("openai", "openai")}`);
    expect(r.defaults.full).toEqual({ model: "work/claude-sonnet-5", effort: "medium", source: "catalog:work" });
    expect(r.defaults.mini?.model).toBe("work/claude-haiku-4-5");
  });

  test("a tier without a catalog default falls back: deepseek has no nano, so nano is its mini", () => {
    const r = load(`providers:\n${provider("deepseek", "deepseek")}`);
    expect(r.defaults.mini).toMatchObject({ model: "deepseek/deepseek-v4-flash", source: "catalog:deepseek" });
    expect(r.defaults.nano).toMatchObject({ model: "deepseek/deepseek-v4-flash", source: "fallback:mini" });
    const moonshot = load(`providers:\n${provider("kimi", "moonshot")}`);
    expect(moonshot.defaults.mini).toMatchObject({ model: "kimi/kimi-k2.6", source: "fallback:full" });
    expect(moonshot.defaults.nano).toMatchObject({ model: "kimi/kimi-k2.6", source: "fallback:full" });
  });

  test("a disabled default model is skipped: the next provider with defaults supplies them", () => {
    const r = load(`providers:\n${provider("openai", "openai")}${provider("anthropic", "anthropic")}models:\n  openai/gpt-5.5: { enabled: false }\n`);
    expect(r.defaults.full).toMatchObject({ model: "anthropic/claude-sonnet-5", source: "catalog:anthropic" });
  });
});

describe("what the config sets wins", () => {
  test("defaults.full set: the other tiers fall back to it, as before (the catalog fills tiers only when full is unset)", () => {
    const r = load(`providers:\n${provider("openai", "openai")}defaults:\n  full: openai/gpt-5.4(high)\n`);
    expect(r.defaults.full).toEqual({ model: "openai/gpt-5.4", effort: "high", source: "configured" });
    expect(r.defaults.mini).toEqual({ model: "openai/gpt-5.4", effort: "high", source: "fallback:full" });
    expect(r.defaults.nano).toEqual({ model: "openai/gpt-5.4", effort: "high", source: "fallback:full" });
  });

  test("defaults.mini set alone: full and nano from the catalog, mini as written", () => {
    const r = load(`providers:\n${provider("openai", "openai")}defaults:\n  mini: openai/gpt-5.4-nano(low)\n`);
    expect(r.defaults.full).toMatchObject({ model: "openai/gpt-5.5", source: "catalog:openai" });
    expect(r.defaults.mini).toEqual({ model: "openai/gpt-5.4-nano", effort: "low", source: "configured" });
    expect(r.defaults.nano).toMatchObject({ model: "openai/gpt-5.4-nano", effort: "medium", source: "catalog:openai" });
  });

  test("a custom provider and no catalog one: the first model of class full, as before", () => {
    const r = load(`providers:\n  local: { kind: { type: custom_b_compatible }, url: "http://127.0.0.1:8080/v1" }\nmodels:\n  mine: { provider: local, class: full, context_window: 32000 }\n`);
    expect(r.defaults.full).toEqual({ model: "mine", effort: null, source: "first_of_class" });
  });
});
