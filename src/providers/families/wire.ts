// What a family description adds to a request besides the body: headers (User-Agent, Anthropic betas),
// the options refused before anything is sent, and the explanation of a vendor's 400.
import { ProviderError } from "../errors.ts";
import type { ProviderRequest } from "../request.ts";
import type { ModelApi } from "./types.ts";

/** Headers the description asks for: `anthropic-beta` while reasoning is on, merged with configured betas. */
export function familyHeaders(api: ModelApi, request: ProviderRequest, configured: Readonly<Record<string, string>>): Record<string, string> {
  if (api.betas.length === 0 || !request.reasoning?.enabled) return {};
  const have = (configured["anthropic-beta"] ?? "").split(",").map((b) => b.trim()).filter((b) => b.length > 0);
  return { "anthropic-beta": [...new Set([...have, ...api.betas])].join(",") };
}

/** The config key naming the model in messages: `models.<key>` when known, else the id as sent. */
function modelKey(request: ProviderRequest): string {
  return request.model_config?.key ?? request.model;
}

/** An option the vendor would refuse with reasoning on fails here, naming the option to remove. */
export function checkRefusedOptions(api: ModelApi, request: ProviderRequest): void {
  if (!request.reasoning?.enabled) return;
  for (const key of Object.keys(request.request_options)) {
    if (!api.refusedWithReasoning.includes(key)) continue;
    throw new ProviderError({
      kind: "invalid_request",
      code: "option_refused_with_reasoning",
      message:
        `models.${modelKey(request)}.request_option_defaults.${key} cannot be sent: ${api.vendor} refuses '${key}' for ${request.model} while reasoning is on ` +
        `(family ${api.id}, ${api.sources[0] ?? "vendor documentation"}); remove it, or choose a model without reasoning`,
    });
  }
}

/** Wire fields a vendor's message may name, and the config key that changes each (`<m>`: the model's key). */
const FIELD_KEYS: readonly [RegExp, (m: string, p: string) => string][] = [
  [/reasoning_content/, (m) => `models.${m}.api.reasoning_replay`],
  [/\bthinking\.display|\bdisplay\b/, (m) => `models.${m}.api.thinking_display`],
  // "thinking mode" / "thinking is enabled" in a replay error name the mode, not the field.
  [/^(?![\s\S]*reasoning_content)[\s\S]*(?:\bthinking\b|budget_tokens|adaptive)/, (m) => `models.${m}.api.thinking`],
  [/output_config|\beffort\b|reasoning_effort/, (m) => `the effort level ('${m}(<level>)' in defaults.full or --model; the model's reasoning.levels)`],
  [/cache_control/, (m, p) => `models.${m}.api.cache_control (or providers.${p}.cache_control_strategy)`],
  [/max_tokens|max_completion_tokens|max_output_tokens/, (m) => `models.${m}.max_output_tokens_per_turn`],
  [/anthropic-beta|\bbetas?\b/, (_m, p) => `providers.${p}.headers`],
  [/\bimages?\b|image_url|input_image/, (m) => `models.${m}.api.tool_result_images (or models.${m}.supports_vision)`],
  [/prompt_cache_key/, (m) => `models.${m}.request_option_defaults`],
];

/** Sampling options a vendor's message names, though this request did not set them (another layer did). */
const SAMPLING = /\b(temperature|top_p|top_k|presence_penalty|frequency_penalty)\b/g;

/**
 * A 400 from the provider as the user needs it: which provider and model refused, the vendor's own
 * message, and the config key that changes the field it names (when one does). Never retried.
 */
export function explainRejection(error: ProviderError, provider: string, api: ModelApi, request: ProviderRequest): ProviderError {
  const vendorText = error.message.replace(/^provider returned /, "");
  const key = modelKey(request);
  const hints: string[] = [];
  const text = error.message.toLowerCase();
  for (const option of Object.keys(request.request_options)) {
    if (new RegExp(`\\b${option.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(text)) hints.push(`models.${key}.request_option_defaults.${option}`);
  }
  for (const [, option] of text.matchAll(SAMPLING)) hints.push(`models.${key}.request_option_defaults.${option}`);
  for (const [field, configKey] of FIELD_KEYS) {
    if (field.test(text)) hints.push(configKey(key, provider));
  }
  const sentence = /[.!?]$/.test(vendorText) ? vendorText : `${vendorText}.`;
  const where = hints.length > 0 ? ` Set by: ${[...new Set(hints)].join("; ")}.` : "";
  return new ProviderError({
    kind: error.kind,
    status: error.status,
    code: error.code,
    message: `provider '${provider}' refused the request for model '${request.model}' (model family ${api.id}): ${sentence}${where}`,
    retryAfterMs: null,
    shouldRetry: false,
    requestId: error.requestId,
  });
}
