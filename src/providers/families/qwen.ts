// Alibaba's Qwen models on DashScope's OpenAI-compatible mode. Hybrid thinking models think only with
// `enable_thinking: true` (a DashScope extension); the reasoning streams in reasoning_content and is not
// asked back. Source: alibabacloud.com/help/en/model-studio/deep-thinking.
import type { FamilyRule, ModelFamily } from "./types.ts";

export const QWEN: ModelFamily = {
  id: "qwen",
  vendor: "Alibaba Cloud",
  title: "Qwen (qwen3-coder, qwen-plus/flash/max, QwQ)",
  sources: ["https://www.alibabacloud.com/help/en/model-studio/deep-thinking"],
  thinking: { form: "flag", field: "enable_thinking" },
  effort: null,
  replay: { field: "none", on: "all", mandatory: false, whenEmpty: null },
  toolResultImages: "user_message",
  cacheControl: "automatic",
  maxOutputField: "max_tokens",
  betas: [],
  refusedWithReasoning: [],
  promptVariant: "open",
};

export const QWEN_RULES: readonly FamilyRule[] = [{ family: QWEN, dialects: ["b_chat_completions"], match: (id) => /^(?:qwen|qwq)/.test(id) }];
