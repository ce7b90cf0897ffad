// Which providers the key variables configure when no config file names one, in which order, with
// which address; and the one line that tells the user.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envChoiceLine, providersFromEnv, saveProviderChoice } from "../../src/providers/env-providers.ts";
import { configEnv } from "../helpers/config-env.ts";

describe("providersFromEnv", () => {
  test("nothing set: nothing chosen", () => {
    expect(providersFromEnv({ HOME: "/h", PATH: "/bin" })).toBeNull();
  });

  test("the documented order: Anthropic, OpenAI, Gemini, OpenRouter, DeepSeek, ...; the first gives the defaults", () => {
    const s = providersFromEnv({ DEEPSEEK_API_KEY: "d", OPENROUTER_API_KEY: "r", GEMINI_API_KEY: "g", OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a" })!;
    expect(s.found.map((p) => p.name)).toEqual(["anthropic", "openai", "google", "openrouter", "deepseek"]);
    expect(s.defaults).toEqual({ full: "anthropic/claude-sonnet-5", mini: "anthropic/claude-haiku-4-5", nano: "anthropic/claude-haiku-4-5" });
    expect(s.providers.openai).toEqual({ kind: { type: "catalog", name: "openai" }, auth: { type: "static_key", key: "o" } });
    expect(s.secrets.sort()).toEqual(["a", "d", "g", "o", "r"]);
  });

  test("each catalog key variable counts; blank values do not; the vendor's alternatives are read in order", () => {
    expect(providersFromEnv({ XAI_API_KEY: "x" })!.found[0]).toMatchObject({ name: "xai", keyVar: "XAI_API_KEY" });
    expect(providersFromEnv({ GROQ_API_KEY: "x" })!.defaults!.full).toBe("groq/openai/gpt-oss-120b");
    expect(providersFromEnv({ MISTRAL_API_KEY: "  " })).toBeNull();
    expect(providersFromEnv({ GOOGLE_API_KEY: "g2" })!.found[0]).toMatchObject({ name: "google", keyVar: "GOOGLE_API_KEY" });
  });

  test("tokens that other tools set (GITHUB_TOKEN, HF_TOKEN) do not choose a provider on their own", () => {
    expect(providersFromEnv({ GITHUB_TOKEN: "ghp", HF_TOKEN: "hf" })).toBeNull();
  });

  test("base-URL variables move the address; a trailing slash is dropped", () => {
    const s = providersFromEnv({ ANTHROPIC_API_KEY: "a", ANTHROPIC_BASE_URL: "http://127.0.0.1:9/", OPENAI_API_KEY: "o", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" })!;
    expect(s.providers.anthropic!.url).toBe("http://127.0.0.1:9");
    expect(s.providers.openai!.url).toBe("http://127.0.0.1:9/v1");
    expect(s.found[0]).toMatchObject({ urlVar: "ANTHROPIC_BASE_URL", url: "http://127.0.0.1:9" });
  });

  test("Azure: the endpoint variable gives the resource, the API path is added; without it the key is reported as incomplete", () => {
    const s = providersFromEnv({ AZURE_OPENAI_API_KEY: "z", AZURE_OPENAI_ENDPOINT: "https://res.openai.azure.com/" })!;
    expect(s.providers.azure!.url).toBe("https://res.openai.azure.com/openai/v1");
    const f = providersFromEnv({ ANTHROPIC_FOUNDRY_API_KEY: "f", ANTHROPIC_FOUNDRY_RESOURCE: "res" })!;
    expect(f.providers["azure-anthropic"]!.url).toBe("https://res.services.ai.azure.com/anthropic");
    const missing = providersFromEnv({ AZURE_OPENAI_API_KEY: "z" })!;
    expect(missing.found).toEqual([]);
    expect(missing.incomplete).toEqual([{ name: "azure", keyVar: "AZURE_OPENAI_API_KEY", missing: "AZURE_OPENAI_ENDPOINT" }]);
  });

  test("the line says the model, the vendor, the variable, the other usable providers and how to change it; never the key", () => {
    const s = providersFromEnv({ HOME: "/home/u", ANTHROPIC_API_KEY: "sk-secret", OPENAI_API_KEY: "sk-other" })!;
    const line = envChoiceLine(s, "anthropic/claude-sonnet-5");
    expect(line).toBe("using anthropic/claude-sonnet-5 (Anthropic, key from ANTHROPIC_API_KEY, no config file); also usable: openai (OPENAI_API_KEY) · change it: --model PROVIDER/MODEL, `agent setup`, or providers/defaults in /home/u/.config/agent/config.yaml; `agent models` lists them");
    expect(line).not.toContain("sk-");
  });

  test("the line names the config file where XDG_CONFIG_HOME puts it", () => {
    const s = providersFromEnv({ HOME: "/home/u", XDG_CONFIG_HOME: "/xdg/conf", ANTHROPIC_API_KEY: "k" })!;
    expect(envChoiceLine(s, "anthropic/claude-sonnet-5")).toContain("providers/defaults in /xdg/conf/agent/config.yaml;");
  });

  test("several keys: the first-run choice (remembered under the data root) goes first and gives the defaults", () => {
    const home = mkdtempSync(join(tmpdir(), "choice-"));
    const env = { HOME: home, ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", GROQ_API_KEY: "g" };
    expect(providersFromEnv(env)!.chosen).toBe(false);
    const path = saveProviderChoice(env, "openai");
    expect(path).toBe(join(home, ".local", "share", "agent", "provider-choice.json"));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const s = providersFromEnv(env)!;
    expect(s.found.map((f) => f.name)).toEqual(["openai", "anthropic", "groq"]);
    expect(s.defaults!.full).toBe("openai/gpt-5.5");
    expect(s.chosen).toBe(true);
    expect(envChoiceLine(s, "openai/gpt-5.5")).toStartWith("using openai/gpt-5.5 (OpenAI, key from OPENAI_API_KEY, your first-run choice, no config file); also usable: anthropic (ANTHROPIC_API_KEY), groq (GROQ_API_KEY)");
    // The chosen key gone: back to the documented order, and the choice is asked again.
    const without = providersFromEnv({ HOME: home, ANTHROPIC_API_KEY: "a", GROQ_API_KEY: "g" })!;
    expect([without.found[0]!.name, without.chosen]).toEqual(["anthropic", false]);
  });
});

describe("loadConfig with no provider in any file", () => {
  test("the environment's providers, their models and defaults are loaded; the keys are secrets", () => {
    const c = configEnv();
    const loaded = c.load({ env: { ANTHROPIC_API_KEY: "sk-ant-123" } });
    expect(loaded.ok).toBe(true);
    expect(loaded.defaults.full?.model).toBe("anthropic/claude-sonnet-5");
    expect(loaded.models.models.get("anthropic/claude-haiku-4-5")).toMatchObject({ provider: "anthropic", class: "mini", context_window: 200000 });
    expect(loaded.secrets).toContain("sk-ant-123");
    expect(loaded.fromEnvironment?.found.map((p) => p.name)).toEqual(["anthropic"]);
  });

  test("a config file with providers: the environment is not consulted", () => {
    const c = configEnv();
    c.globalFile("providers:\n  local: { kind: { type: custom_b_compatible }, url: 'http://127.0.0.1:1/v1' }\n");
    const loaded = c.load({ env: { ANTHROPIC_API_KEY: "sk-ant-123" } });
    expect(loaded.fromEnvironment).toBeNull();
    expect(loaded.models.models.has("anthropic/claude-sonnet-5")).toBe(false);
  });

  test("defaults written in a file are kept over the environment's", () => {
    const c = configEnv();
    c.globalFile("defaults: { full: anthropic/claude-opus-4-8 }\n");
    const loaded = c.load({ env: { ANTHROPIC_API_KEY: "sk-ant-123" } });
    expect(loaded.defaults.full?.model).toBe("anthropic/claude-opus-4-8");
  });
});
