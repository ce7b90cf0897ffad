// OpenAI's reasoning models (GPT-5 family, o-series) on the Responses API and on Chat Completions.
// Responses: `reasoning: {effort, summary}`, reasoning items sent back verbatim with encrypted_content
// (store:false); Chat Completions: `reasoning_effort`, nothing to send back. Reasoning models refuse
// temperature and top_p ("Unsupported parameter: 'temperature' is not supported with this model").
// Sources: platform.openai.com/docs/guides/reasoning, platform.openai.com/docs/api-reference/responses/create,
// platform.openai.com/docs/guides/images-vision (input_image in function_call_output).
import type { FamilyRule, ModelFamily } from "./types.ts";

const SOURCES = ["https://platform.openai.com/docs/guides/reasoning", "https://platform.openai.com/docs/api-reference/responses/create"] as const;

export const OPENAI_REASONING_RESPONSES: ModelFamily = {
  id: "openai-reasoning",
  vendor: "OpenAI",
  title: "GPT-5 family and o-series on the Responses API (also the ChatGPT plan's Codex models)",
  sources: SOURCES,
  thinking: { form: "none" },
  effort: "reasoning.effort",
  replay: { field: "encrypted_items", on: "all", mandatory: false, whenEmpty: null },
  toolResultImages: "native",
  cacheControl: "automatic",
  maxOutputField: "max_output_tokens",
  betas: [],
  refusedWithReasoning: ["temperature", "top_p"],
  promptVariant: "gpt",
};

export const OPENAI_REASONING_CHAT: ModelFamily = {
  ...OPENAI_REASONING_RESPONSES,
  id: "openai-reasoning-chat",
  title: "GPT-5 family and o-series on Chat Completions (OpenAI, Azure OpenAI, GitHub Models)",
  sources: ["https://platform.openai.com/docs/guides/reasoning", "https://platform.openai.com/docs/api-reference/chat/create"],
  effort: "reasoning_effort",
  replay: { field: "none", on: "all", mandatory: false, whenEmpty: null },
  toolResultImages: "user_message",
  maxOutputField: "max_completion_tokens",
};

// gpt-5, gpt-5.5, gpt-5.4-mini, gpt-5.3-codex, o3, o4-mini (not gpt-oss, an open-weight model served by others).
const reasoningModel = (id: string) => /^(?:gpt-[5-9]|o\d)(?:-|$)/.test(id);

export const OPENAI_RULES: readonly FamilyRule[] = [
  { family: OPENAI_REASONING_RESPONSES, dialects: ["b_responses"], match: reasoningModel },
  { family: OPENAI_REASONING_CHAT, dialects: ["b_chat_completions"], match: reasoningModel },
];
