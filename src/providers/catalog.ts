// The built-in catalog: the real model providers resolvable with `kind: {type: catalog, name}`, each with
// its address, the environment variables that carry its key, the protocol value it speaks and its
// default models. The spec's neutral letters (`a`, `b`, ...) stay valid as aliases of the vendor that
// speaks that protocol, so configs written against them keep working. Models come from the models.dev
// snapshot (src/providers/model-catalog.ts), loaded only when a catalog provider is used.
import { type ProviderProtocol } from "./protocols.ts";
import type { CatalogProviderDefaults, ProviderSettings } from "./settings.ts";
import type { DeviceLoginSource } from "./device-auth/endpoints.ts";

export interface CatalogProvider {
  /** The name written in `kind: {type: catalog, name}` and used as the provider key when taken from the environment. */
  name: string;
  /** Other accepted names: the spec's letter of the protocol (first vendor only), short forms. */
  aliases: readonly string[];
  title: string;
  protocol: ProviderProtocol;
  /** Default base URL; null when each account has its own (Azure resources): the url must be configured. */
  url: string | null;
  /** Variables holding the key, first is the one to set; empty for local servers and device logins. */
  env: readonly string[];
  /** Variable overriding the base URL (the official SDKs' own where they have one). */
  baseUrlEnv: string | null;
  /** `key`: static key from `env`; `none`: local server, no auth; `device_a`: device login. */
  auth: "key" | "none" | "device_a";
  /** Whether its key alone (no config) selects it; false for tokens commonly set for other tools. */
  autoDetect: boolean;
  /** models.dev provider id whose models this provider serves (null: models come from its `/models`). */
  modelsDev: string | null;
  /** Only models whose id matches (a backend that serves part of a vendor's list). */
  modelFilter?: RegExp;
  /** Model ids (of the snapshot) for the three size classes. */
  defaults: { full: string; mini?: string; nano?: string } | null;
  /** Where its device login authorizes (issuer or endpoint URLs, and the client id registered for this agent); config fields win. */
  deviceLogin?: DeviceLoginSource;
  /** Where to get a key. */
  keyUrl: string | null;
  summary: string;
}

const p = (c: Omit<CatalogProvider, "aliases" | "autoDetect" | "auth" | "baseUrlEnv"> & Partial<CatalogProvider>): CatalogProvider => ({
  aliases: [],
  autoDetect: c.env.length > 0,
  auth: c.env.length > 0 ? "key" : "none",
  baseUrlEnv: null,
  ...c,
});

/**
 * In the documented order of detection from the environment (docs/providers.md): first-party vendors,
 * then routers, then the other hosted APIs, then local servers.
 */
export const CATALOG_PROVIDERS: readonly CatalogProvider[] = [
  p({
    name: "anthropic", aliases: ["a"], title: "Anthropic", protocol: "a_messages", url: "https://api.anthropic.com",
    env: ["ANTHROPIC_API_KEY"], baseUrlEnv: "ANTHROPIC_BASE_URL", modelsDev: "anthropic",
    defaults: { full: "claude-sonnet-5", mini: "claude-haiku-4-5", nano: "claude-haiku-4-5" },
    keyUrl: "https://console.anthropic.com/settings/keys", summary: "Claude models through the Messages API",
  }),
  p({
    name: "openai", aliases: ["b"], title: "OpenAI", protocol: "b_responses", url: "https://api.openai.com/v1",
    env: ["OPENAI_API_KEY"], baseUrlEnv: "OPENAI_BASE_URL", modelsDev: "openai",
    defaults: { full: "gpt-5.5", mini: "gpt-5.4-mini", nano: "gpt-5.4-nano" },
    keyUrl: "https://platform.openai.com/api-keys", summary: "GPT models through the Responses API (set protocol: b_chat_completions for Chat Completions)",
  }),
  p({
    name: "google", aliases: ["gemini"], title: "Google Gemini", protocol: "f_chat_completions",
    url: "https://generativelanguage.googleapis.com/v1beta/openai",
    env: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"], baseUrlEnv: "GOOGLE_GEMINI_BASE_URL", modelsDev: "google",
    defaults: { full: "gemini-3.1-pro-preview", mini: "gemini-3.5-flash", nano: "gemini-3.1-flash-lite" },
    keyUrl: "https://aistudio.google.com/apikey", summary: "Gemini models through Google's OpenAI-compatible endpoint",
  }),
  p({
    name: "openrouter", aliases: ["e"], title: "OpenRouter", protocol: "e_chat_completions", url: "https://openrouter.ai/api/v1",
    env: ["OPENROUTER_API_KEY"], baseUrlEnv: "OPENROUTER_BASE_URL", modelsDev: "openrouter",
    defaults: { full: "anthropic/claude-sonnet-5", mini: "anthropic/claude-haiku-4.5", nano: "openai/gpt-5.4-nano" },
    keyUrl: "https://openrouter.ai/settings/keys", summary: "Router to many vendors' models (Chat Completions, reasoning in delta.reasoning)",
  }),
  p({
    name: "deepseek", aliases: ["d"], title: "DeepSeek", protocol: "d_chat_completions", url: "https://api.deepseek.com",
    env: ["DEEPSEEK_API_KEY"], baseUrlEnv: "DEEPSEEK_BASE_URL", modelsDev: "deepseek",
    defaults: { full: "deepseek-v4-pro", mini: "deepseek-v4-flash" },
    keyUrl: "https://platform.deepseek.com/api_keys", summary: "DeepSeek models (Chat Completions, reasoning_content)",
  }),
  p({
    name: "xai", aliases: ["i", "grok"], title: "xAI", protocol: "i_chat_completions", url: "https://api.x.ai/v1",
    env: ["XAI_API_KEY"], baseUrlEnv: "XAI_BASE_URL", modelsDev: "xai",
    defaults: { full: "grok-4.3", mini: "grok-4.20-0309-non-reasoning" },
    keyUrl: "https://console.x.ai", summary: "Grok models (Chat Completions, reasoning_content)",
  }),
  p({
    name: "groq", aliases: ["j"], title: "Groq", protocol: "j_chat_completions", url: "https://api.groq.com/openai/v1",
    env: ["GROQ_API_KEY"], baseUrlEnv: "GROQ_BASE_URL", modelsDev: "groq",
    defaults: { full: "openai/gpt-oss-120b", mini: "openai/gpt-oss-20b", nano: "llama-3.1-8b-instant" },
    keyUrl: "https://console.groq.com/keys", summary: "Open models on Groq hardware (Chat Completions under /openai/v1)",
  }),
  p({
    name: "mistral", aliases: ["f"], title: "Mistral", protocol: "f_chat_completions", url: "https://api.mistral.ai/v1",
    env: ["MISTRAL_API_KEY"], baseUrlEnv: "MISTRAL_BASE_URL", modelsDev: "mistral",
    defaults: { full: "mistral-large-latest", mini: "mistral-medium-latest", nano: "mistral-small-latest" },
    keyUrl: "https://console.mistral.ai/api-keys", summary: "Mistral and Devstral models (Chat Completions without stream_options)",
  }),
  p({
    name: "dashscope", aliases: ["k", "alibaba", "qwen"], title: "Alibaba Cloud DashScope (Qwen)", protocol: "k_chat_completions",
    url: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    env: ["DASHSCOPE_API_KEY"], baseUrlEnv: "DASHSCOPE_BASE_URL", modelsDev: "alibaba",
    defaults: { full: "qwen3-coder-plus", mini: "qwen3-coder-flash", nano: "qwen-flash" },
    keyUrl: "https://modelstudio.console.alibabacloud.com", summary: "Qwen models through DashScope's compatible mode (international endpoint)",
  }),
  p({
    name: "moonshot", aliases: ["kimi"], title: "Moonshot AI (Kimi)", protocol: "d_chat_completions", url: "https://api.moonshot.ai/v1",
    env: ["MOONSHOT_API_KEY"], baseUrlEnv: "MOONSHOT_BASE_URL", modelsDev: "moonshotai",
    defaults: { full: "kimi-k2.6" },
    keyUrl: "https://platform.moonshot.ai/console/api-keys", summary: "Kimi models (Chat Completions, reasoning_content)",
  }),
  p({
    name: "zai", aliases: ["glm", "zhipu"], title: "Z.ai (GLM)", protocol: "d_chat_completions", url: "https://api.z.ai/api/paas/v4",
    env: ["ZAI_API_KEY", "ZHIPU_API_KEY"], baseUrlEnv: "ZAI_BASE_URL", modelsDev: "zai",
    defaults: { full: "glm-5.1", mini: "glm-4.5-air" },
    keyUrl: "https://z.ai/manage-apikey/apikey-list", summary: "GLM models (Chat Completions, reasoning_content)",
  }),
  p({
    name: "minimax", aliases: ["l"], title: "MiniMax", protocol: "l_messages", url: "https://api.minimax.io/anthropic",
    env: ["MINIMAX_API_KEY"], baseUrlEnv: "MINIMAX_BASE_URL", modelsDev: "minimax",
    defaults: { full: "MiniMax-M2.7" },
    keyUrl: "https://platform.minimax.io/user-center/basic-information/interface-key",
    summary: "MiniMax models through its Anthropic-compatible Messages endpoint (keeps interleaved thinking)",
  }),
  p({
    name: "kimi-for-coding", aliases: ["m"], title: "Kimi For Coding", protocol: "m_messages", url: "https://api.kimi.com/coding",
    env: ["KIMI_API_KEY"], baseUrlEnv: "KIMI_BASE_URL", modelsDev: "kimi-for-coding",
    defaults: { full: "k2p7" },
    keyUrl: "https://www.kimi.com/code", summary: "Kimi's coding subscription through its Messages endpoint",
  }),
  p({
    name: "zai-coding-plan", aliases: ["n"], title: "Z.ai GLM Coding Plan", protocol: "n_messages", url: "https://api.z.ai/api/anthropic",
    env: ["ZAI_API_KEY", "ZHIPU_API_KEY"], autoDetect: false, modelsDev: "zai-coding-plan",
    defaults: { full: "glm-5.1", mini: "glm-4.5-air" },
    keyUrl: "https://z.ai/manage-apikey/apikey-list", summary: "GLM Coding Plan through Z.ai's Messages endpoint (bearer auth)",
  }),
  p({
    name: "together", aliases: ["togetherai"], title: "Together AI", protocol: "d_chat_completions", url: "https://api.together.xyz/v1",
    env: ["TOGETHER_API_KEY"], baseUrlEnv: "TOGETHER_BASE_URL", modelsDev: "togetherai",
    defaults: { full: "moonshotai/Kimi-K2.6", mini: "openai/gpt-oss-120b" },
    keyUrl: "https://api.together.ai/settings/api-keys", summary: "Open models on Together (Chat Completions)",
  }),
  p({
    name: "fireworks", aliases: ["fireworks-ai"], title: "Fireworks AI", protocol: "d_chat_completions", url: "https://api.fireworks.ai/inference/v1",
    env: ["FIREWORKS_API_KEY"], baseUrlEnv: "FIREWORKS_BASE_URL", modelsDev: "fireworks-ai",
    defaults: { full: "accounts/fireworks/models/kimi-k2p6", mini: "accounts/fireworks/models/gpt-oss-120b" },
    keyUrl: "https://fireworks.ai/settings/users/api-keys", summary: "Open models on Fireworks (Chat Completions, reasoning_content)",
  }),
  p({
    name: "cerebras", aliases: [], title: "Cerebras", protocol: "i_chat_completions", url: "https://api.cerebras.ai/v1",
    env: ["CEREBRAS_API_KEY"], baseUrlEnv: "CEREBRAS_BASE_URL", modelsDev: "cerebras",
    defaults: { full: "gpt-oss-120b" },
    keyUrl: "https://cloud.cerebras.ai", summary: "Open models on Cerebras hardware (Chat Completions, max_completion_tokens)",
  }),
  p({
    name: "azure", aliases: ["g", "azure-openai"], title: "Azure OpenAI", protocol: "g_chat_completions", url: null,
    env: ["AZURE_OPENAI_API_KEY", "AZURE_API_KEY"], baseUrlEnv: "AZURE_OPENAI_ENDPOINT", modelsDev: "azure",
    defaults: { full: "gpt-5.5", mini: "gpt-5.4-mini", nano: "gpt-5.4-nano" },
    keyUrl: "https://portal.azure.com", summary: "Your Azure OpenAI resource: url https://<resource>.openai.azure.com/openai/v1, model name = deployment name, api-key header",
  }),
  p({
    name: "azure-anthropic", aliases: ["o", "foundry"], title: "Claude in Microsoft Foundry", protocol: "o_messages", url: null,
    env: ["ANTHROPIC_FOUNDRY_API_KEY"], baseUrlEnv: "ANTHROPIC_FOUNDRY_BASE_URL", modelsDev: "anthropic",
    defaults: { full: "claude-sonnet-4-6", mini: "claude-haiku-4-5", nano: "claude-haiku-4-5" },
    keyUrl: "https://ai.azure.com", summary: "Claude deployments of a Foundry resource: url https://<resource>.services.ai.azure.com/anthropic, api-key header",
  }),
  p({
    name: "github-models", aliases: ["github"], title: "GitHub Models", protocol: "b_chat_completions", url: "https://models.github.ai/inference",
    env: ["GITHUB_TOKEN"], autoDetect: false, modelsDev: "github-models",
    defaults: { full: "openai/gpt-4.1", mini: "openai/gpt-4.1-mini", nano: "openai/gpt-4.1-nano" },
    keyUrl: "https://github.com/settings/personal-access-tokens", summary: "GitHub Models inference (a token with models:read)",
  }),
  p({
    name: "huggingface", aliases: ["hf"], title: "Hugging Face Inference Providers", protocol: "d_chat_completions", url: "https://router.huggingface.co/v1",
    env: ["HF_TOKEN"], autoDetect: false, modelsDev: "huggingface",
    defaults: { full: "moonshotai/Kimi-K2.6", mini: "openai/gpt-oss-120b" },
    keyUrl: "https://huggingface.co/settings/tokens", summary: "Hugging Face's router to inference providers (Chat Completions)",
  }),
  p({
    name: "chatgpt", aliases: ["c", "codex"], title: "ChatGPT plan (Codex backend)", protocol: "c_responses", url: "https://chatgpt.com/backend-api/codex",
    env: [], auth: "device_a", autoDetect: false, modelsDev: "openai", modelFilter: /codex/,
    defaults: { full: "gpt-5.3-codex", mini: "gpt-5.1-codex-mini" },
    keyUrl: null, summary: "The Codex backend of a ChatGPT plan (device_a login; issuer and client_id of your own in the config)",
  }),
  p({
    name: "ollama", aliases: [], title: "Ollama (local)", protocol: "h_chat_completions", url: "http://127.0.0.1:11434/v1",
    env: [], baseUrlEnv: "OLLAMA_BASE_URL", modelsDev: null, defaults: null, keyUrl: null,
    summary: "Local Ollama server on its default port; models from its /v1/models",
  }),
  p({
    name: "lmstudio", aliases: ["lm-studio"], title: "LM Studio (local)", protocol: "h_chat_completions", url: "http://127.0.0.1:1234/v1",
    env: [], baseUrlEnv: "LMSTUDIO_BASE_URL", modelsDev: null, defaults: null, keyUrl: null,
    summary: "Local LM Studio server on its default port; models from its /v1/models",
  }),
  p({
    name: "vllm", aliases: ["h"], title: "vLLM (local)", protocol: "h_chat_completions", url: "http://127.0.0.1:8000/v1",
    env: [], baseUrlEnv: "VLLM_BASE_URL", modelsDev: null, defaults: null, keyUrl: null,
    summary: "Local vLLM server on its default port; models from its /v1/models",
  }),
  p({
    name: "llamacpp", aliases: ["llama.cpp", "llama-cpp"], title: "llama.cpp server (local)", protocol: "h_chat_completions", url: "http://127.0.0.1:8080/v1",
    env: [], baseUrlEnv: "LLAMACPP_BASE_URL", modelsDev: null, defaults: null, keyUrl: null,
    summary: "Local llama-server on its default port; models from its /v1/models",
  }),
  p({
    name: "test", aliases: [], title: "Offline demo", protocol: "test", url: null,
    env: [], modelsDev: null, defaults: { full: "test-scripted" }, keyUrl: null,
    summary: "Scripted offline demo provider (no network, no account)",
  }),
];

const BY_NAME = new Map<string, CatalogProvider>();
for (const entry of CATALOG_PROVIDERS) for (const n of [entry.name, ...entry.aliases]) if (!BY_NAME.has(n)) BY_NAME.set(n, entry);

/** The catalog entry by name or alias. */
export function catalogProvider(name: string): CatalogProvider | undefined {
  return BY_NAME.get(name);
}

/** Every accepted catalog name (names and aliases), for suggestions. */
export function catalogNames(): string[] {
  return [...BY_NAME.keys()];
}

/** What resolveProvider needs from the catalog for `settings`; null for custom kinds or unknown names. */
export function catalogDefaults(settings: Pick<ProviderSettings, "kind">): CatalogProviderDefaults | null {
  if (settings.kind.type !== "catalog") return null;
  const entry = catalogProvider(settings.kind.name);
  return entry ? { protocol: entry.protocol, url: entry.url } : null;
}
