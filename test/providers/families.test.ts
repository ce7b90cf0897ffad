// The request each model family receives: thinking form, effort, reasoning sent back, caching, betas,
// options refused with reasoning, and the config override. Bodies are built the way a call builds them
// (buildRequestBody with a resolved catalog or custom provider), so the address plays no part.
import { describe, expect, test } from "bun:test";
import { buildRequestBody, requestApi } from "../../src/providers/client.ts";
import { catalogDefaults } from "../../src/providers/catalog.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import { describeModel, normalizeModelId } from "../../src/providers/families/resolve.ts";
import type { ModelApiOverride } from "../../src/providers/families/types.ts";
import type { ConversationMessage, ProviderRequest } from "../../src/providers/request.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import type { ProviderSettings } from "../../src/providers/settings.ts";

const KEY = { type: "static_key" as const, key: "sk-test-0123456789" };

function catalog(name: string, over: Partial<ProviderSettings> = {}) {
  const settings: ProviderSettings = { kind: { type: "catalog", name }, auth: KEY, ...over };
  return resolveProvider(name, settings, catalogDefaults(settings as never));
}

/** One tool round: the user asks, the model reasons and calls a tool, the result comes back. */
function toolTurn(reasoning: string | null): ConversationMessage[] {
  return [
    { role: "user", content: [{ type: "text", text: "read a.txt" }] },
    {
      role: "assistant",
      content: [
        ...(reasoning === null ? [] : [{ type: "reasoning" as const, text: reasoning, replay: null }]),
        { type: "tool_call" as const, id: "call_1", name: "read", arguments: { path: "a.txt" } },
      ],
    },
    { role: "tool_results", results: [{ call_id: "call_1", output: "hello" }] },
  ];
}

function request(model: string, over: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model,
    system: "You are a coding agent.",
    messages: toolTurn("I should read the file."),
    tools: [{ name: "read", description: "read a file", input_schema: { type: "object" } }],
    max_output_tokens: 32000,
    stop_sequences: [],
    reasoning: { effort: "high", enabled: true },
    request_options: {},
    prompt_cache_key: "ses_1",
    ...over,
  };
}

const body = (provider: ReturnType<typeof catalog>, req: ProviderRequest) => buildRequestBody(provider, req) as any;
const assistant = (b: any) => b.messages.find((m: any) => m.role === "assistant");
const cacheMarks = (b: any) => JSON.stringify(b).match(/"cache_control"/g)?.length ?? 0;

describe("Claude on the Messages API", () => {
  test("claude-sonnet-5: adaptive thinking with summarized display and effort; never the budget form", () => {
    const b = body(catalog("anthropic"), request("claude-sonnet-5"));
    expect(b.thinking).toEqual({ type: "adaptive", display: "summarized" });
    expect(b.output_config).toEqual({ effort: "high" });
    expect(JSON.stringify(b)).not.toContain("budget_tokens");
  });

  test("claude-opus-4-7 and claude-fable-5 are adaptive only as well; claude-opus-4-6 is adaptive without a display", () => {
    for (const model of ["claude-opus-4-7", "claude-opus-4-8", "claude-fable-5"]) expect(body(catalog("anthropic"), request(model)).thinking.type).toBe("adaptive");
    const b = body(catalog("anthropic"), request("claude-opus-4-6", { reasoning: { effort: "max", enabled: true } }));
    expect(b.thinking).toEqual({ type: "adaptive" });
    expect(b.output_config).toEqual({ effort: "max" });
  });

  test("claude-sonnet-4-5 and claude-haiku-4-5: budget thinking below max_tokens, no effort field, the interleaved-thinking beta", () => {
    const provider = catalog("anthropic");
    for (const model of ["claude-sonnet-4-5-20250929", "claude-haiku-4-5"]) {
      const req = request(model, { reasoning: { effort: null, enabled: true } });
      const b = body(provider, req);
      expect(b.thinking).toEqual({ type: "enabled", budget_tokens: 16000 });
      expect(b.output_config).toBeUndefined();
      expect(requestApi(provider, req).betas).toEqual(["interleaved-thinking-2025-05-14"]);
    }
    // The level picks the budget on models without an effort field (Opus 4.5 lists levels).
    expect(body(provider, request("claude-opus-4-5", { reasoning: { effort: "low", enabled: true } })).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(body(provider, request("claude-sonnet-4-5", { max_output_tokens: 8000 })).thinking.budget_tokens).toBe(6976);
  });

  test("thinking blocks go back verbatim, signature included", () => {
    const block = { type: "thinking" as const, thinking: "plan", signature: "sig_1" };
    const messages = toolTurn(null);
    (messages[1] as any).content.unshift({ type: "reasoning", text: "plan", replay: { dialect: "a_messages", block } });
    expect(assistant(body(catalog("anthropic"), request("claude-sonnet-5", { messages }))).content[0]).toEqual(block);
  });

  test("caching follows the family: breakpoints through a gateway (ANTHROPIC_BASE_URL) and on Foundry, not only api.anthropic.com", () => {
    const gateway = catalog("anthropic", { url: "https://llm-gateway.corp.example" });
    const custom = resolveProvider("gw", { kind: { type: "custom_a_compatible" }, url: "https://litellm.internal", auth: KEY });
    const foundry = catalog("azure-anthropic", { url: "https://res.services.ai.azure.com/anthropic" });
    for (const provider of [catalog("anthropic"), gateway, custom, foundry]) {
      const b = body(provider, request("claude-sonnet-4-6"));
      expect(b.system[0].cache_control).toEqual({ type: "ephemeral" });
      expect(cacheMarks(b)).toBe(4);
    }
    // A configured strategy still wins, both ways.
    expect(cacheMarks(body(catalog("anthropic", { cache_control_strategy: "provider_managed" }), request("claude-sonnet-5")))).toBe(0);
    const minimax = catalog("minimax");
    expect(cacheMarks(body(minimax, request("MiniMax-M2.7")))).toBe(0);
    expect(cacheMarks(body(catalog("minimax", { cache_control_strategy: "breakpoints" }), request("MiniMax-M2.7")))).toBe(4);
  });

  test("temperature with thinking is refused before anything is sent, naming the config key", () => {
    const req = request("claude-sonnet-5", { request_options: { temperature: "0.2" }, model_config: { key: "anthropic/claude-sonnet-5" } });
    const error = (() => {
      try {
        body(catalog("anthropic"), req);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain("models.anthropic/claude-sonnet-5.request_option_defaults.temperature cannot be sent");
    // Without reasoning the option is the user's to set.
    expect(body(catalog("anthropic"), { ...req, reasoning: null }).temperature).toBe(0.2);
  });
});

describe("Chat Completions vendors that require their reasoning back", () => {
  test("deepseek-v4-pro: reasoning_content on every assistant message with tool calls, '' when there was none, reasoning_effort", () => {
    const provider = catalog("deepseek");
    const b = body(provider, request("deepseek-v4-pro"));
    expect(assistant(b).reasoning_content).toBe("I should read the file.");
    expect(b.reasoning_effort).toBe("high");
    expect(b.max_tokens).toBe(32000);
    expect(assistant(body(provider, request("deepseek-v4-flash", { messages: toolTurn(null) }))).reasoning_content).toBe("");
    // A message without tool calls does not need it.
    const plain: ConversationMessage[] = [{ role: "user", content: [{ type: "text", text: "hi" }] }, { role: "assistant", content: [{ type: "reasoning", text: "r", replay: null }, { type: "text", text: "hello" }] }];
    expect(assistant(body(provider, request("deepseek-v4-pro", { messages: plain }))).reasoning_content).toBeUndefined();
  });

  test("Kimi K2.5+ (Moonshot, Together, Fireworks, Hugging Face): reasoning_content, a space when there was none", () => {
    const cases: [string, string][] = [["moonshot", "kimi-k2.5"], ["together", "moonshotai/Kimi-K2.6"], ["fireworks", "accounts/fireworks/models/kimi-k2p6"], ["huggingface", "moonshotai/Kimi-K2.5"]];
    for (const [name, model] of cases) {
      expect(assistant(body(catalog(name), request(model, { reasoning: { effort: null, enabled: true } }))).reasoning_content).toBe("I should read the file.");
      expect(assistant(body(catalog(name), request(model, { messages: toolTurn(null) }))).reasoning_content).toBe(" ");
    }
    // Kimi's fixed sampling values: a configured temperature is refused while thinking.
    expect(() => body(catalog("moonshot"), request("kimi-k2.6", { request_options: { temperature: "0.3" } }))).toThrow(/request_option_defaults\.temperature cannot be sent/);
  });

  test("through OpenRouter the reasoning goes back under OpenRouter's own name, `reasoning`", () => {
    const b = body(catalog("openrouter"), request("moonshotai/kimi-k2.6"));
    expect(assistant(b).reasoning).toBe("I should read the file.");
    expect(assistant(b).reasoning_content).toBeUndefined();
  });

  test("GLM: reasoning_content when there is some (recommended, not required); nothing when empty", () => {
    expect(assistant(body(catalog("zai"), request("glm-5.1"))).reasoning_content).toBe("I should read the file.");
    expect(assistant(body(catalog("zai"), request("glm-5.1", { messages: toolTurn(null) })))).not.toHaveProperty("reasoning_content");
  });

  test("Qwen: enable_thinking only for a model that reasons; no reasoning sent back", () => {
    const b = body(catalog("dashscope"), request("qwen-flash", { reasoning: { effort: null, enabled: true } }));
    expect(b.enable_thinking).toBe(true);
    expect(assistant(b)).not.toHaveProperty("reasoning_content");
    expect(body(catalog("dashscope"), request("qwen3-coder-plus", { reasoning: null }))).not.toHaveProperty("enable_thinking");
  });

  test("Mistral: images from tools become a note (a user message may not follow a tool message there)", () => {
    const messages = toolTurn(null);
    (messages[2] as any).results[0].images = [{ type: "image", media_type: "image/png", data_base64: "iVBORw0KGgo=" }];
    const b = body(catalog("mistral"), request("mistral-large-latest", { messages, reasoning: null }));
    expect(b.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(b.messages.at(-1).content).toContain("images from tools do not reach this model");
  });

  test("MiniMax on its Messages endpoint: thinking blocks back, the budget form, no images (the endpoint takes none)", () => {
    const block = { type: "thinking" as const, thinking: "plan", signature: "s" };
    const messages = toolTurn(null);
    (messages[1] as any).content.unshift({ type: "reasoning", text: "plan", replay: { dialect: "a_messages", block } });
    (messages[2] as any).results[0].images = [{ type: "image", media_type: "image/png", data_base64: "iVBORw0KGgo=" }];
    const b = body(catalog("minimax"), request("MiniMax-M2.7", { messages, reasoning: { effort: null, enabled: true } }));
    expect(b.thinking).toEqual({ type: "enabled", budget_tokens: 16000 });
    expect(assistant(b).content[0]).toEqual(block);
    expect(JSON.stringify(b)).not.toContain("iVBORw0KGgo=");
  });
});

describe("caching and cache keys on Chat Completions", () => {
  test("Claude through OpenRouter: cache_control on the system prompt and the latest turns (at most 4)", () => {
    const b = body(catalog("openrouter"), request("anthropic/claude-sonnet-5"));
    expect(b.messages[0].content).toEqual([{ type: "text", text: "You are a coding agent.", cache_control: { type: "ephemeral" } }]);
    expect(cacheMarks(b)).toBe(3);
    expect(b.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "hello", cache_control: { type: "ephemeral" } }] });
    expect(cacheMarks(body(catalog("openrouter"), request("deepseek/deepseek-v4-pro")))).toBe(0);
  });

  test("prompt_cache_key goes to OpenAI's and Azure's Chat Completions only (others may refuse an unknown field)", () => {
    expect(body(resolveProvider("o", { kind: { type: "custom_b_compatible" }, url: "https://api.openai.com/v1", auth: KEY }), request("gpt-5.5")).prompt_cache_key).toBe("ses_1");
    expect(body(catalog("azure", { url: "https://res.openai.azure.com/openai/v1" }), request("gpt-5.5")).prompt_cache_key).toBe("ses_1");
    for (const [name, model] of [["deepseek", "deepseek-v4-pro"], ["mistral", "mistral-large-latest"], ["groq", "openai/gpt-oss-120b"], ["openrouter", "openai/gpt-5.5"]] as const)
      expect(body(catalog(name), request(model))).not.toHaveProperty("prompt_cache_key");
  });
});

describe("the family description", () => {
  test("model ids are matched in one normalized form", () => {
    expect(normalizeModelId("anthropic/claude-haiku-4.5")).toBe("claude-haiku-4-5");
    expect(normalizeModelId("accounts/fireworks/models/kimi-k2p6")).toBe("kimi-k2-6");
    expect(normalizeModelId("qwen/qwen3-coder:free")).toBe("qwen3-coder");
    expect(describeModel("a_messages", "claude-3-7-sonnet-20250219").id).toBe("claude-3");
    expect(describeModel("b_chat_completions", "kimi-k2-0905-preview").id).toBe("chat");
    expect(describeModel("a_messages", "some-model").origin).toBe("default");
  });

  test("models.<name>.api overrides it: another family by id, or single rules", () => {
    const provider = resolveProvider("local", { kind: { type: "custom_b_compatible" }, url: "http://127.0.0.1:8000/v1", auth: { type: "no_auth" } });
    const asDeepSeek: ModelApiOverride = { family: "deepseek-thinking" };
    const b = body(provider, request("my-served-model", { messages: toolTurn(null), model_config: { key: "local-ds", api: asDeepSeek } }));
    expect(assistant(b).reasoning_content).toBe("");
    expect(assistant(body(provider, request("my-served-model")))).not.toHaveProperty("reasoning_content");
    const budget = body(catalog("anthropic"), request("claude-opus-4-6", { model_config: { key: "k", api: { thinking: "budget" } } }));
    expect(budget.thinking.type).toBe("enabled");
    const omitted = body(catalog("anthropic"), request("claude-sonnet-5", { model_config: { key: "k", api: { thinking_display: "omitted" } } }));
    expect(omitted.thinking).toEqual({ type: "adaptive", display: "omitted" });
    expect(() => body(provider, request("m", { model_config: { key: "local-ds", api: { family: "nope" } } }))).toThrow(/models\.local-ds\.api\.family 'nope' is not a known family/);
    // Images from tools: `none` sends the note instead; `native` is where the dialect puts them.
    const png = { type: "image" as const, media_type: "image/png", data_base64: "iVBORw0KGgo=" };
    const withImage = toolTurn(null);
    (withImage[2] as any).results[0].images = [png];
    const off = body(catalog("anthropic"), request("claude-sonnet-5", { messages: withImage, model_config: { key: "k", api: { tool_result_images: "none" } } }));
    expect(JSON.stringify(off)).not.toContain("iVBORw0KGgo=");
    expect(JSON.stringify(off)).toContain("images from tools do not reach this model");
    expect(JSON.stringify(body(catalog("anthropic"), request("claude-sonnet-5", { messages: withImage })))).toContain("iVBORw0KGgo=");
    expect(describeModel("b_chat_completions", "m", { tool_result_images: "native" }).toolResultImages).toBe("user_message");
  });
});

describe("models.<name>.api in the config", () => {
  const PROVIDERS = "providers:\n  local:\n    kind: { type: custom_b_compatible }\n    url: http://127.0.0.1:8080/v1\n";

  test("an unknown family is a config error naming the key and the known ids; a known one reaches the resolved model", async () => {
    const { configEnv, problemLines } = await import("../helpers/config-env.ts");
    const bad = configEnv();
    bad.globalFile(`${PROVIDERS}models:\n  m: { provider: local, class: full, context_window: 1000, api: { family: deepseek-thinkin } }\n`);
    const lines = problemLines(bad.load(), "error");
    expect(lines.some((l) => l.startsWith("models.m.api.family: unknown model family 'deepseek-thinkin'") && l.includes("deepseek-thinking"))).toBe(true);
    const good = configEnv();
    good.globalFile(`${PROVIDERS}models:\n  m: { provider: local, class: full, context_window: 1000, api: { family: deepseek-thinking, cache_control: automatic } }\n  child: { inherits: m }\n`);
    const result = good.load();
    expect(problemLines(result, "error")).toEqual([]);
    expect(result.models.models.get("m")?.api).toEqual({ family: "deepseek-thinking", cache_control: "automatic" });
    expect(result.models.models.get("child")?.api).toEqual({ family: "deepseek-thinking", cache_control: "automatic" });
  });
});

describe("models.dev facts fill in where no family matches", () => {
  test("interleaved.field = reasoning_content: the snapshot keeps it and the generic Chat Completions family sends reasoning back", async () => {
    const { compactModel } = await import("../../src/providers/models-dev.ts");
    const m = compactModel({ id: "mimo", tool_call: true, limit: { context: 1000 }, reasoning: true, interleaved: { field: "reasoning_content" } });
    expect(m?.il).toBe("reasoning_content");
    expect(compactModel({ id: "x", tool_call: true, limit: { context: 1000 }, interleaved: true })?.il).toBeUndefined();
    const { configEnv } = await import("../helpers/config-env.ts");
    const c = configEnv();
    c.globalFile("providers:\n  openrouter: { kind: { type: catalog, name: openrouter }, auth: { type: static_key, key: sk-or-0123456789 } }\n");
    const model = c.load().models.models.get("openrouter/xiaomi/mimo-v2.5-pro");
    expect(model?.interleaved).toBe("reasoning_content");
    const req = request(model!.provider_name, { model_config: { key: model!.key, interleaved: model!.interleaved } });
    expect(requestApi(catalog("openrouter"), req).origin).toBe("catalog");
    expect(assistant(body(catalog("openrouter"), req)).reasoning).toBe("I should read the file.");
    // A family, where one matches, is the authority.
    expect(describeModel("b_chat_completions", "qwen3.5-397b-a17b", null, { interleaved: "reasoning_content" }).id).toBe("qwen");
  });

  test("MiniMax over Chat Completions hosts gets its reasoning_content back when the host streamed it apart", () => {
    expect(assistant(body(catalog("huggingface"), request("MiniMaxAI/MiniMax-M2.7"))).reasoning_content).toBe("I should read the file.");
    expect(assistant(body(catalog("huggingface"), request("MiniMaxAI/MiniMax-M2.7", { messages: toolTurn(null) })))).not.toHaveProperty("reasoning_content");
  });
});

describe("OpenRouter's reasoning_details", () => {
  test("streamed details are merged, kept with the model that wrote them, and go back to it verbatim", async () => {
    const { ChatCompletionsDecoder } = await import("../../src/providers/dialects/b-chat-completions.ts");
    const { PROTOCOL_INFO } = await import("../../src/providers/protocols.ts");
    const events: any[] = [];
    const decoder = new ChatCompletionsDecoder((e) => events.push(e), PROTOCOL_INFO.e_chat_completions, "anthropic/claude-sonnet-5");
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      decoder.onSse("", JSON.stringify({ id: "gen-1", model: "anthropic/claude-sonnet-5", choices: [{ index: 0, delta, finish_reason: finish }] }));
    const fmt = { format: "anthropic-claude-v1", index: 0 };
    chunk({ reasoning: "Let me ", reasoning_details: [{ type: "reasoning.text", text: "Let me ", ...fmt }] });
    chunk({ reasoning: "read it.", reasoning_details: [{ type: "reasoning.text", text: "read it.", ...fmt }] });
    chunk({ reasoning_details: [{ type: "reasoning.text", text: "", signature: "sig-abc", ...fmt }] });
    chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }] }, "tool_calls");
    decoder.onSse("", "[DONE]");
    const done = events.find((e) => e.type === "reasoning_done");
    const details = [{ type: "reasoning.text", text: "Let me read it.", signature: "sig-abc", ...fmt }];
    expect(done).toMatchObject({ text: "Let me read it.", replay: { dialect: "b_chat_completions", model: "anthropic/claude-sonnet-5", details } });

    const messages = toolTurn(null);
    (messages[1] as any).content.unshift({ type: "reasoning", text: "Let me read it.", replay: done.replay });
    expect(assistant(body(catalog("openrouter"), request("anthropic/claude-sonnet-5", { messages }))).reasoning_details).toEqual(details);
    // Another model never gets them.
    expect(assistant(body(catalog("openrouter"), request("anthropic/claude-opus-4.7", { messages })))).not.toHaveProperty("reasoning_details");
  });
});
