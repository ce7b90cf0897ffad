// What a model no family matches gets: the dialect's own documented shape, nothing vendor-specific.
// Messages: the budget form (accepted by every Claude before 4.7 and by the Messages-compatible
// vendors); Chat Completions: `reasoning_effort` (OpenAI's field, which the compatible servers take);
// Responses: `reasoning.effort` and the encrypted reasoning items. Gemini's thought signatures on tool
// calls go back with the call to the model that made them, whatever the family (b-chat-completions.ts).
import type { BaseDialect } from "../protocols.ts";
import type { ModelFamily } from "./types.ts";

const base = {
  sources: [] as readonly string[],
  betas: [] as readonly string[],
  refusedWithReasoning: [] as readonly string[],
  cacheControl: "automatic" as const,
};

export const GENERIC: Readonly<Record<BaseDialect, ModelFamily>> = {
  a_messages: {
    ...base,
    id: "messages",
    vendor: "Messages API",
    title: "Any other model on a Messages endpoint",
    sources: ["https://platform.claude.com/docs/en/api/messages"],
    thinking: { form: "budget" },
    effort: "output_config.effort",
    replay: { field: "thinking_blocks", on: "all", mandatory: false, whenEmpty: null },
    toolResultImages: "native",
    maxOutputField: "max_tokens",
    promptVariant: "claude",
  },
  b_chat_completions: {
    ...base,
    id: "chat",
    vendor: "Chat Completions API",
    title: "Any other model over Chat Completions",
    sources: ["https://platform.openai.com/docs/api-reference/chat/create"],
    thinking: { form: "none" },
    effort: "reasoning_effort",
    replay: { field: "none", on: "all", mandatory: false, whenEmpty: null },
    toolResultImages: "user_message",
    maxOutputField: null,
    promptVariant: "open",
  },
  b_responses: {
    ...base,
    id: "responses",
    vendor: "Responses API",
    title: "Any other model on the Responses API",
    sources: ["https://platform.openai.com/docs/api-reference/responses/create"],
    thinking: { form: "none" },
    effort: "reasoning.effort",
    replay: { field: "encrypted_items", on: "all", mandatory: false, whenEmpty: null },
    toolResultImages: "native",
    maxOutputField: "max_output_tokens",
    promptVariant: "gpt",
  },
};
