// Moonshot's Kimi thinking models (K2.5 and later, K2 Thinking), on Moonshot's API and on the hosts
// serving them (Together, Fireworks, Hugging Face, OpenRouter). With thinking on (the default) every
// assistant message with tool calls must carry its reasoning_content, else 400 "thinking is enabled but
// reasoning_content is missing in assistant tool call message at index N"; an empty string counts as
// missing, so a message without reasoning gets a single space. temperature, top_p, n, presence_penalty
// and frequency_penalty "cannot be modified" on K2.5/K2.6.
// Sources: platform.kimi.ai/docs/api/models-overview (parameter table, thinking parameter),
// platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model (multi-step tool calls keep reasoning_content).
import type { FamilyRule, ModelFamily } from "./types.ts";

export const KIMI_THINKING: ModelFamily = {
  id: "kimi-thinking",
  vendor: "Moonshot AI",
  title: "Kimi K2.5 and later, Kimi K2 Thinking",
  sources: ["https://platform.kimi.ai/docs/api/models-overview", "https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model"],
  thinking: { form: "none" },
  effort: "reasoning_effort",
  replay: { field: "reasoning_content", on: "tool_calls", mandatory: true, whenEmpty: " " },
  toolResultImages: "user_message",
  cacheControl: "automatic",
  maxOutputField: "max_tokens",
  betas: [],
  refusedWithReasoning: ["temperature", "top_p", "n", "presence_penalty", "frequency_penalty"],
  promptVariant: "open",
};

/** Kimi For Coding speaks Messages: its thinking blocks go back as they came (the same rule, in Messages form). */
export const KIMI_MESSAGES: ModelFamily = {
  ...KIMI_THINKING,
  id: "kimi-messages",
  title: "Kimi models on a Messages endpoint (Kimi For Coding)",
  sources: ["https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model"],
  thinking: { form: "budget" },
  effort: null,
  replay: { field: "thinking_blocks", on: "all", mandatory: true, whenEmpty: null },
  toolResultImages: "native",
  // The fixed sampling values are documented for Moonshot's Chat Completions API only.
  refusedWithReasoning: [],
  promptVariant: "open",
};

// kimi-k2.5, kimi-k2.6, kimi-k2.7-code, kimi-k2p6 (Fireworks), k2p7 (Kimi For Coding), kimi-k2-thinking(-turbo), kimi-latest.
const kimiThinking = (id: string) => /(?:^|-)k(?:imi-k)?2-(?:thinking|[5-9](?!\d))|kimi-latest/.test(id);

export const MOONSHOT_RULES: readonly FamilyRule[] = [
  { family: KIMI_THINKING, dialects: ["b_chat_completions"], match: kimiThinking },
  { family: KIMI_MESSAGES, dialects: ["a_messages"], match: (id) => kimiThinking(id) || /^kimi-/.test(id) },
];
