// DeepSeek's thinking models (V4, and deepseek-reasoner), on DeepSeek's API and on the hosts serving
// them over Chat Completions. "For turns that do perform tool calls, the reasoning_content must be fully
// passed back to the API in all subsequent requests", else 400 "The reasoning_content in the thinking
// mode must be passed back to the API"; the field must be there even when the reasoning was empty (an
// assistant message with tool calls and no reasoning_content is refused the same way). Thinking is on
// by default; the depth is `reasoning_effort` (low/high/max). temperature, presence_penalty and
// frequency_penalty have no effect in thinking mode (accepted, not refused).
// Source: api-docs.deepseek.com/guides/thinking_mode.
import type { FamilyRule, ModelFamily } from "./types.ts";

export const DEEPSEEK_THINKING: ModelFamily = {
  id: "deepseek-thinking",
  vendor: "DeepSeek",
  title: "DeepSeek V4 (Pro, Flash) and deepseek-reasoner",
  sources: ["https://api-docs.deepseek.com/guides/thinking_mode"],
  thinking: { form: "none" },
  effort: "reasoning_effort",
  replay: { field: "reasoning_content", on: "tool_calls", mandatory: true, whenEmpty: "" },
  toolResultImages: "user_message",
  cacheControl: "automatic",
  maxOutputField: "max_tokens",
  betas: [],
  refusedWithReasoning: [],
  promptVariant: "open",
};

export const DEEPSEEK_RULES: readonly FamilyRule[] = [
  { family: DEEPSEEK_THINKING, dialects: ["b_chat_completions"], match: (id) => /deepseek-(?:v4|reasoner|v3-2(?!-exp-non))/.test(id) },
];
