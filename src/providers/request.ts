// The normalized request the engine hands to a provider; each dialect maps it to its wire body.
import type { AssistantPart } from "./events.ts";
import type { ModelApiOverride } from "./families/types.ts";

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's arguments object. */
  input_schema: Record<string, unknown>;
}

export type ImagePart = { type: "image"; media_type: string; data_base64: string };

export type UserPart = { type: "text"; text: string } | ImagePart;

export interface ToolResult {
  call_id: string;
  output: string;
  is_error?: boolean;
  /** Images the tool returned, sent only to a model that can see them (each dialect in its own form). */
  images?: ImagePart[];
}

export type ConversationMessage =
  | { role: "user"; content: UserPart[] }
  | { role: "assistant"; content: AssistantPart[] }
  | { role: "tool_results"; results: ToolResult[] };

export interface ReasoningRequest {
  /** Effort level name of the model's reasoning capability (e.g. `low`, `high`). */
  effort: string | null;
  /** Thinking-style models: whether thinking is on, and its token budget. */
  enabled: boolean;
  budget_tokens?: number | null;
}

/** Forcing the model's use of tools (sent only when the model's `forced_tool_choice_supported` allows). */
export type ToolChoice = { type: "auto" } | { type: "none" } | { type: "required" } | { type: "tool"; name: string };

export interface ProviderRequest {
  /** Model identifier sent to the provider (`provider_name` of the model, or the deployment name). */
  model: string;
  system: string | null;
  messages: ConversationMessage[];
  tools: ToolSpec[];
  max_output_tokens: number | null;
  stop_sequences: string[];
  reasoning: ReasoningRequest | null;
  /** `request_option_defaults` merged with per-turn options; top-level body keys, applied last. */
  request_options: Record<string, boolean | string>;
  /** Absent: the provider's default (auto). */
  tool_choice?: ToolChoice | null;
  /** Cache routing key (the conversation id): Responses, and the Chat Completions endpoints that document it. */
  prompt_cache_key?: string | null;
  /**
   * The model's config key and its `models.<key>.api` override (families/types.ts). Absent: the family
   * is matched by `model` alone, and errors name the model as sent.
   */
  model_config?: { key: string; api?: ModelApiOverride | null; interleaved?: "reasoning_content" | null } | null;
}

/** Cache strategy of Messages-dialect providers (spec: cache_control_strategy). */
export type CacheControlStrategy = "breakpoints" | "provider_managed";
