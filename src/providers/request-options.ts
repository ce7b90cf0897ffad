// `request_option_defaults` on the wire. The config carries every option as a boolean or a string
// (spec: "boolean or string up to 512 bytes"), but the provider APIs type them: `temperature` is a
// number, `top_k` an integer, `metadata` an object. Each value is converted to the type its dialect's
// API gives the option, so a `"0.2"` in the config is sent as 0.2, never as a string.
import type { BaseDialect } from "./protocols.ts";
import { ProviderError } from "./errors.ts";

/** Wire types of request options; `json` parses a value written as a JSON object/array, else keeps it. */
export type OptionType = "number" | "integer" | "boolean" | "string" | "json";

type WireDialect = BaseDialect;

const SAMPLING: Record<string, OptionType> = { temperature: "number", top_p: "number" };

/** The options each dialect's API documents, with their types. Unknown names: see `wireValue`. */
export const OPTION_TYPES: Readonly<Record<WireDialect, Readonly<Record<string, OptionType>>>> = {
  a_messages: {
    ...SAMPLING,
    top_k: "integer",
    max_tokens: "integer",
    service_tier: "string",
    metadata: "json",
    tool_choice: "json",
    thinking: "json",
    output_config: "json",
  },
  b_chat_completions: {
    ...SAMPLING,
    presence_penalty: "number",
    frequency_penalty: "number",
    seed: "integer",
    n: "integer",
    top_logprobs: "integer",
    max_tokens: "integer",
    max_completion_tokens: "integer",
    logprobs: "boolean",
    parallel_tool_calls: "boolean",
    store: "boolean",
    user: "string",
    service_tier: "string",
    reasoning_effort: "string",
    verbosity: "string",
    prompt_cache_key: "string",
    safety_identifier: "string",
    logit_bias: "json",
    metadata: "json",
    response_format: "json",
    tool_choice: "json",
    // Sampling knobs of local inference servers (the h_ variant and other OpenAI-compatible servers).
    top_k: "integer",
    min_p: "number",
    repetition_penalty: "number",
  },
  b_responses: {
    ...SAMPLING,
    max_output_tokens: "integer",
    max_tool_calls: "integer",
    top_logprobs: "integer",
    parallel_tool_calls: "boolean",
    store: "boolean",
    background: "boolean",
    user: "string",
    service_tier: "string",
    prompt_cache_key: "string",
    safety_identifier: "string",
    truncation: "string",
    previous_response_id: "string",
    metadata: "json",
    text: "json",
    reasoning: "json",
    include: "json",
    tool_choice: "json",
  },
};

/**
 * Body keys the agent builds itself: replacing them would break the call (a non-streamed reply, a
 * conversation without its history), so an option of that name is refused.
 */
export const RESERVED_BODY_KEYS: Readonly<Record<WireDialect, readonly string[]>> = {
  a_messages: ["model", "messages", "system", "tools", "stream"],
  b_chat_completions: ["model", "messages", "tools", "stream", "stream_options"],
  b_responses: ["model", "input", "instructions", "tools", "stream"],
};

const DIALECT_NAME: Record<WireDialect, string> = {
  a_messages: "Messages",
  b_chat_completions: "Chat Completions",
  b_responses: "Responses",
};

/** A decimal number as JSON writes it (no hex, no `Infinity`, no blanks): what `Number()` may read. */
const NUMBER_LITERAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function invalid(dialect: WireDialect, key: string, value: boolean | string, allowed: string): ProviderError {
  const shown = typeof value === "string" ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : String(value);
  return new ProviderError({
    kind: "invalid_request",
    code: "invalid_request_option",
    message: `request_option_defaults.${key} is ${shown}, but the ${DIALECT_NAME[dialect]} API expects ${allowed}`,
  });
}

/** One option's value as the provider expects it; throws an `invalid_request` ProviderError when it cannot be. */
export function wireValue(dialect: WireDialect, key: string, value: boolean | string): unknown {
  if (RESERVED_BODY_KEYS[dialect].includes(key))
    throw new ProviderError({
      kind: "invalid_request",
      code: "invalid_request_option",
      message: `request_option_defaults.${key} cannot be set: the agent builds '${key}' of every ${DIALECT_NAME[dialect]} request itself`,
    });
  const type = Object.hasOwn(OPTION_TYPES[dialect], key) ? OPTION_TYPES[dialect][key] : undefined;
  switch (type) {
    case "number":
    case "integer": {
      if (typeof value !== "string" || !NUMBER_LITERAL.test(value.trim())) throw invalid(dialect, key, value, type === "integer" ? "an integer" : "a number");
      const n = Number(value.trim());
      if (type === "integer" && !Number.isSafeInteger(n)) throw invalid(dialect, key, value, "an integer");
      return n;
    }
    case "boolean":
      if (typeof value === "boolean") return value;
      if (value === "true" || value === "false") return value === "true";
      throw invalid(dialect, key, value, "true or false");
    case "string":
      if (typeof value !== "string") throw invalid(dialect, key, value, "a string");
      return value;
    case "json": {
      if (typeof value !== "string" || !/^\s*[[{]/.test(value)) return value;
      try {
        return JSON.parse(value);
      } catch {
        throw invalid(dialect, key, value, "valid JSON (the value starts like a JSON object or array)");
      }
    }
    default:
      // An option the table does not know (a vendor extension): a value written as a number is one.
      return typeof value === "string" && NUMBER_LITERAL.test(value) ? Number(value) : value;
  }
}

/** All request options converted for the dialect, in their written order. */
export function wireRequestOptions(dialect: WireDialect, options: Readonly<Record<string, boolean | string>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) out[key] = wireValue(dialect, key, value);
  return out;
}
