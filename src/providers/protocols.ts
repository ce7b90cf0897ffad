// The protocol table: every `providers.<name>.protocol` value of the config spec, mapped to the base
// wire dialect it speaks plus the documented differences of its variant (default URL, auth format,
// headers, small request-shape differences). The values keep the spec's neutral letters; each letter is
// the real vendor that speaks that variant (a = Anthropic, b = OpenAI, c = the ChatGPT Codex backend,
// d = DeepSeek, e = OpenRouter, f = Mistral, g = Azure OpenAI, h = a local server such as vLLM, i = xAI,
// j = Groq, k = DashScope, l = MiniMax, m = Kimi For Coding, n = Z.ai, o = Claude in Microsoft Foundry),
// and the default URL is that vendor's. Other vendors of the catalog reuse the variant that fits them.

/** All 17 protocol values, in the spec's order. The config schema imports this tuple. */
export const PROTOCOLS = [
  "a_messages",
  "b_responses",
  "b_chat_completions",
  "d_chat_completions",
  "e_chat_completions",
  "f_chat_completions",
  "g_chat_completions",
  "h_chat_completions",
  "i_chat_completions",
  "j_chat_completions",
  "k_chat_completions",
  "l_messages",
  "m_messages",
  "n_messages",
  "o_messages",
  "c_responses",
  "test",
] as const;

export type ProviderProtocol = (typeof PROTOCOLS)[number];

/** Auth header formats of `static_key` auth (spec: AuthFormat). */
export const AUTH_FORMATS = ["bearer_token", "a_x_api_key", "c_api_key"] as const;
export type AuthFormat = (typeof AUTH_FORMATS)[number];

/** The wire dialects actually implemented; every protocol maps to one of them. */
export type BaseDialect = "a_messages" | "b_chat_completions" | "b_responses";

/**
 * How a configured `url` becomes a request URL:
 * - `origin`: the url is the origin (optionally with a path prefix); `/v1/<endpoint>` is appended.
 * - `versioned_base`: the url already carries the version; `/<endpoint>` is appended.
 * - `origin_or_v1`: origin or a base ending in `/v1` (incl. `/openai/v1`); `/v1` is never doubled.
 * - `none`: the offline `test` provider: its url is a script file, served on 127.0.0.1 at call time.
 */
export type UrlStyle = "origin" | "versioned_base" | "origin_or_v1" | "none";

/** Where a chat-completions variant streams reasoning text, if it does. */
export type ReasoningDeltaField = "reasoning_content" | "reasoning" | null;

export interface ProtocolInfo {
  readonly baseDialect: BaseDialect;
  /** Base URL used when the provider sets no `url` (catalog entries may set their own). */
  readonly defaultUrl: string | null;
  /** The provider's recommended header format for `static_key` auth; null when no auth applies. */
  readonly defaultAuthFormat: AuthFormat | null;
  /** Headers the variant always sends; `providers.<name>.headers` and per-request headers win over them. */
  readonly defaultHeaders: Readonly<Record<string, string>>;
  readonly urlStyle: UrlStyle;
  /**
   * Chat Completions: whether the endpoint documents `prompt_cache_key` (OpenAI's Chat Completions
   * reference, Azure OpenAI's prompt caching guide); others may refuse an unknown field, so it is sent
   * only where documented.
   */
  readonly promptCacheKey: boolean;
  /** Chat-completions variants: field carrying streamed reasoning text. */
  readonly reasoningDeltaField: ReasoningDeltaField;
  /** Chat-completions variants: whether `stream_options.include_usage` is accepted. */
  readonly streamUsage: boolean;
  /** Chat-completions variants: request field for the output limit. */
  readonly maxTokensField: "max_tokens" | "max_completion_tokens";
  /** One line for docs and `agent` diagnostics. */
  readonly summary: string;
}

/** Messages-dialect wire version header (required by the first-party endpoint, harmless elsewhere). */
export const MESSAGES_VERSION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "anthropic-version": "2023-06-01",
});

const messages = (over: Partial<ProtocolInfo> & Pick<ProtocolInfo, "summary">): ProtocolInfo => ({
  baseDialect: "a_messages",
  defaultUrl: null,
  defaultAuthFormat: "a_x_api_key",
  defaultHeaders: MESSAGES_VERSION_HEADERS,
  urlStyle: "origin",
  promptCacheKey: false,
  reasoningDeltaField: null,
  streamUsage: false,
  maxTokensField: "max_tokens",
  ...over,
});

const chat = (over: Partial<ProtocolInfo> & Pick<ProtocolInfo, "summary">): ProtocolInfo => ({
  baseDialect: "b_chat_completions",
  defaultUrl: null,
  defaultAuthFormat: "bearer_token",
  defaultHeaders: {},
  urlStyle: "versioned_base",
  promptCacheKey: false,
  reasoningDeltaField: null,
  streamUsage: true,
  maxTokensField: "max_completion_tokens",
  ...over,
});

const responses = (over: Partial<ProtocolInfo> & Pick<ProtocolInfo, "summary">): ProtocolInfo => ({
  baseDialect: "b_responses",
  defaultUrl: null,
  defaultAuthFormat: "bearer_token",
  defaultHeaders: {},
  urlStyle: "origin_or_v1",
  promptCacheKey: false,
  reasoningDeltaField: null,
  streamUsage: false,
  maxTokensField: "max_tokens",
  ...over,
});

export const PROTOCOL_INFO: Readonly<Record<ProviderProtocol, ProtocolInfo>> = Object.freeze({
  a_messages: messages({
    defaultUrl: "https://api.anthropic.com",
    summary: "Messages dialect, first-party endpoint: x-api-key auth.",
  }),
  b_responses: responses({
    defaultUrl: "https://api.openai.com/v1",
    summary: "Responses dialect, first-party endpoint: bearer auth.",
  }),
  b_chat_completions: chat({
    defaultUrl: "https://api.openai.com/v1",
    promptCacheKey: true,
    summary: "Chat Completions dialect, first-party endpoint: bearer auth, include_usage, max_completion_tokens, prompt_cache_key.",
  }),
  d_chat_completions: chat({
    defaultUrl: "https://api.deepseek.com",
    reasoningDeltaField: "reasoning_content",
    maxTokensField: "max_tokens",
    summary: "Chat Completions variant streaming reasoning in delta.reasoning_content; max_tokens field.",
  }),
  e_chat_completions: chat({
    defaultUrl: "https://openrouter.ai/api/v1",
    reasoningDeltaField: "reasoning",
    defaultHeaders: { "x-title": "agent" },
    summary: "Chat Completions router variant: reasoning in delta.reasoning, sends an x-title attribution header.",
  }),
  f_chat_completions: chat({
    defaultUrl: "https://api.mistral.ai/v1",
    streamUsage: false,
    maxTokensField: "max_tokens",
    summary: "Chat Completions variant that rejects stream_options (no streamed usage); max_tokens field.",
  }),
  g_chat_completions: chat({
    defaultUrl: null,
    defaultAuthFormat: "c_api_key",
    promptCacheKey: true,
    summary: "Cloud-hosted Chat Completions deployment: api-key header auth, url required, prompt_cache_key.",
  }),
  h_chat_completions: chat({
    defaultUrl: "http://127.0.0.1:8000/v1",
    reasoningDeltaField: "reasoning_content",
    maxTokensField: "max_tokens",
    summary: "Local inference server variant: loopback default URL, reasoning_content, max_tokens field.",
  }),
  i_chat_completions: chat({
    defaultUrl: "https://api.x.ai/v1",
    reasoningDeltaField: "reasoning_content",
    summary: "Chat Completions variant streaming reasoning in delta.reasoning_content.",
  }),
  j_chat_completions: chat({
    defaultUrl: "https://api.groq.com/openai/v1",
    maxTokensField: "max_tokens",
    summary: "Chat Completions compatibility layer under an /openai/v1 base; max_tokens field.",
  }),
  k_chat_completions: chat({
    defaultUrl: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    reasoningDeltaField: "reasoning_content",
    maxTokensField: "max_tokens",
    summary: "Chat Completions compatible-mode variant: reasoning_content, max_tokens field.",
  }),
  l_messages: messages({
    defaultUrl: "https://api.minimax.io/anthropic",
    defaultAuthFormat: "bearer_token",
    summary: "Messages-compatible endpoint under a path prefix: bearer auth.",
  }),
  m_messages: messages({
    defaultUrl: "https://api.kimi.com/coding",
    summary: "Messages-compatible endpoint: x-api-key auth.",
  }),
  n_messages: messages({
    defaultUrl: "https://api.z.ai/api/anthropic",
    defaultAuthFormat: "bearer_token",
    summary: "Messages-compatible endpoint under a path prefix: bearer auth.",
  }),
  o_messages: messages({
    defaultUrl: null,
    defaultAuthFormat: "c_api_key",
    summary: "Cloud-hosted Messages deployment: api-key header auth, url required.",
  }),
  c_responses: responses({
    defaultUrl: "https://chatgpt.com/backend-api/codex",
    urlStyle: "versioned_base",
    defaultHeaders: { originator: "agent" },
    summary: "Responses dialect of the coding-plan backend: bearer auth (device_a login), originator header.",
  }),
  // Its script is served as Chat Completions by an in-process server (scripted-server.ts).
  test: {
    baseDialect: "b_chat_completions",
    defaultUrl: null,
    defaultAuthFormat: null,
    defaultHeaders: {},
    urlStyle: "none",
    promptCacheKey: false,
    reasoningDeltaField: null,
    streamUsage: false,
    maxTokensField: "max_tokens",
    summary: "OFFLINE DEMO provider: replays scripted responses from a local script file; no network.",
  },
});
