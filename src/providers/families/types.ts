// What a model family's API accepts: one description per family (families/<vendor>.ts), matched by
// model id in one place (families/resolve.ts). Request building reads it; the catalog's per-model facts
// (effort levels, output limit, vision, from models.dev) fill in the values; `models.<name>.api` in the
// config overrides it. Each family cites the vendor document its rules come from.
import type { BaseDialect } from "../protocols.ts";

/**
 * How reasoning is switched on.
 * - `adaptive`: Messages `thinking: {type: "adaptive"}` (+ `display` when the vendor's default hides the text);
 *   the depth comes from the effort field.
 * - `budget`: Messages `thinking: {type: "enabled", budget_tokens}`.
 * - `flag`: a boolean body field that turns thinking on (`enable_thinking: true`).
 * - `none`: nothing is sent; the model reasons on its own (or not at all) and effort, if any, says how much.
 */
export type ThinkingForm =
  | { form: "adaptive"; display: ThinkingDisplay | null }
  | { form: "budget" }
  | { form: "flag"; field: string }
  | { form: "none" };

export type ThinkingDisplay = "summarized" | "omitted";

/** Where the effort level goes; its values are the catalog's levels of the model. */
export type EffortField = "output_config.effort" | "reasoning_effort" | "reasoning.effort" | null;

/**
 * How reasoning from earlier answers goes back.
 * - `thinking_blocks`: Messages thinking / redacted_thinking blocks, verbatim with their signatures.
 * - `encrypted_items`: Responses reasoning items, verbatim with `encrypted_content`.
 * - `reasoning_content`: the text on the assistant message's `reasoning_content` field (Chat Completions);
 *   a router that names it otherwise (OpenRouter's `reasoning`) gets it under its own name.
 * - `reasoning_details`: OpenRouter's structured reasoning (signed thinking, encrypted reasoning),
 *   verbatim, to the model that wrote it.
 * - `none`: not sent back.
 */
export type ReplayField = "thinking_blocks" | "encrypted_items" | "reasoning_content" | "reasoning_details" | "none";

export interface ReasoningReplayRule {
  field: ReplayField;
  /** Which assistant messages carry it: those with tool calls, or every one. */
  on: "tool_calls" | "all";
  /** Whether the vendor refuses a request without it (a 400), or merely works better with it. */
  mandatory: boolean;
  /**
   * Sent when an assistant message that must carry the field has no reasoning (made by another model,
   * or reasoning was empty); null: the field is left out then.
   */
  whenEmpty: string | null;
}

/**
 * Images in tool results. `native`: the dialect's own tool-result form (Messages tool_result content
 * blocks, Responses input_image in function_call_output); `user_message`: Chat Completions tool messages
 * take text only, so the images follow in a user message; `none`: the text note only.
 */
export type ToolResultImages = "native" | "user_message" | "none";

/** `breakpoints`: explicit `cache_control` marks (last tool, system, latest user turns); `automatic`: the vendor caches prefixes itself. */
export type CacheControl = "breakpoints" | "automatic";

/**
 * Which wording of the system prompt the family's models follow best (src/agent/context/prompts/variants/):
 * `claude`, `gpt` (OpenAI's reasoning models), `gemini`, or `open` (open-weight chat models).
 */
export type PromptVariant = "claude" | "gpt" | "gemini" | "open";

export interface ModelFamily {
  /** Stable name, usable in `models.<name>.api.family`. */
  id: string;
  vendor: string;
  /** Which models, in words (docs table). */
  title: string;
  /** Vendor documents the rules come from. */
  sources: readonly string[];
  thinking: ThinkingForm;
  effort: EffortField;
  replay: ReasoningReplayRule;
  toolResultImages: ToolResultImages;
  cacheControl: CacheControl;
  /** Body field of the output limit; null: the endpoint's (protocols.ts maxTokensField). */
  maxOutputField: "max_tokens" | "max_completion_tokens" | "max_output_tokens" | null;
  /** `anthropic-beta` values sent when reasoning is on. */
  betas: readonly string[];
  /** Request options the vendor refuses (400) while reasoning is on. */
  refusedWithReasoning: readonly string[];
  promptVariant: PromptVariant;
}

/** A family and the model ids it covers, for one or more dialects. */
export interface FamilyRule {
  family: ModelFamily;
  dialects: readonly BaseDialect[];
  /** Tested against the normalized id (resolve.ts normalizeModelId: lower case, last path segment, `4.5`/`4p5` as `4-5`). */
  match: (id: string) => boolean;
}

/** `models.<name>.api` of the config: any part of the description, or another family by id. */
export interface ModelApiOverride {
  family?: string | null;
  thinking?: "adaptive" | "budget" | "none" | null;
  thinking_display?: ThinkingDisplay | null;
  reasoning_replay?: "reasoning_content" | "none" | null;
  cache_control?: CacheControl | null;
  /** `native`: the dialect's own form (in the tool result; after the tool messages on Chat Completions); `none`: a text note. */
  tool_result_images?: "native" | "none" | null;
}

/** The description a request is built from: the family, with the override applied, and what decided it. */
export interface ModelApi extends ModelFamily {
  /**
   * `family` (matched by id), `default` (no family matched: the dialect's generic one), `catalog` (the
   * generic one with models.dev's facts), `config` (override).
   */
  origin: "family" | "default" | "catalog" | "config";
}
