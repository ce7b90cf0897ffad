// Claude on the Messages API (Anthropic, gateways speaking Messages, Claude in Microsoft Foundry) and
// Claude through a Chat Completions router (OpenRouter). The thinking form depends on the version:
// - 4.7 and later, and every Claude 5: adaptive only; `enabled` + budget_tokens and `disabled` are
//   refused with a 400, and the thinking text is omitted unless `display: "summarized"` is asked for.
// - 4.6: adaptive with effort is the supported form; the budget form is deprecated.
// - 4.0 to 4.5: the budget form only (adaptive is refused); thinking between tool calls needs the
//   `interleaved-thinking-2025-05-14` beta. 3.7: the budget form, no interleaving.
// Sources: platform.claude.com/docs/en/build-with-claude/adaptive-thinking,
// platform.claude.com/docs/en/build-with-claude/extended-thinking (interleaved thinking, "Thinking isn't
// compatible with temperature or top_k modifications"), docs.aws.amazon.com/bedrock/latest/userguide/
// claude-messages-adaptive-thinking.html (Fable 5, Mythos 5, Opus 4.7: adaptive only, 400 otherwise),
// platform.claude.com/docs/en/build-with-claude/prompt-caching, openrouter.ai/docs/features/prompt-caching
// (cache_control in content parts for Anthropic models).
import type { FamilyRule, ModelFamily } from "./types.ts";

const SOURCES = [
  "https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking",
  "https://platform.claude.com/docs/en/build-with-claude/extended-thinking",
  "https://platform.claude.com/docs/en/build-with-claude/prompt-caching",
] as const;

const claude = (over: Partial<ModelFamily> & Pick<ModelFamily, "id" | "title" | "thinking">): ModelFamily => ({
  vendor: "Anthropic",
  sources: SOURCES,
  effort: "output_config.effort",
  replay: { field: "thinking_blocks", on: "all", mandatory: true, whenEmpty: null },
  toolResultImages: "native",
  cacheControl: "breakpoints",
  maxOutputField: "max_tokens",
  betas: [],
  refusedWithReasoning: ["temperature", "top_k"],
  promptVariant: "claude",
  ...over,
});

export const CLAUDE_ADAPTIVE_ONLY = claude({
  id: "claude-adaptive-only",
  title: "Claude 4.7 and later, Claude 5 (Sonnet 5, Opus 4.7/4.8, Fable 5, Mythos 5)",
  thinking: { form: "adaptive", display: "summarized" },
});

export const CLAUDE_ADAPTIVE = claude({
  id: "claude-adaptive",
  title: "Claude 4.6 (Opus 4.6, Sonnet 4.6)",
  thinking: { form: "adaptive", display: null },
});

export const CLAUDE_BUDGET = claude({
  id: "claude-budget",
  title: "Claude 4.0 to 4.5 (Sonnet 4/4.5, Opus 4/4.1/4.5, Haiku 4.5)",
  thinking: { form: "budget" },
  // The level picks the budget (families/resolve.ts budgetFor); there is no effort field for these.
  effort: null,
  betas: ["interleaved-thinking-2025-05-14"],
});

export const CLAUDE_LEGACY = claude({
  id: "claude-3",
  title: "Claude 3.x (3.7 Sonnet thinks with a budget; older ones do not think)",
  thinking: { form: "budget" },
  effort: null,
});

/**
 * Claude through OpenRouter's Chat Completions: thinking is the router's `reasoning_effort`, its signed
 * thinking goes back as reasoning_details, caching by cache_control parts.
 */
export const CLAUDE_VIA_CHAT: ModelFamily = {
  ...CLAUDE_ADAPTIVE_ONLY,
  id: "claude-chat",
  vendor: "Anthropic via OpenRouter",
  title: "Claude through a Chat Completions router (OpenRouter)",
  sources: ["https://openrouter.ai/docs/use-cases/reasoning-tokens", "https://openrouter.ai/docs/features/prompt-caching"],
  thinking: { form: "none" },
  effort: "reasoning_effort",
  // "preserve the complete reasoning_details when passing messages back": Claude's signed thinking,
  // which Anthropic requires on a tool-use turn while thinking is on.
  replay: { field: "reasoning_details", on: "all", mandatory: true, whenEmpty: null },
  toolResultImages: "user_message",
  maxOutputField: null,
};

/** `claude-opus-4-7`, `claude-3-7-sonnet`, `anthropic/claude-sonnet-4.5` (dots already dashes): major, minor. */
export function claudeVersion(id: string): { major: number; minor: number } | null {
  const after = /claude-(?:[a-z]+-)?(\d{1,2})(?:-(\d{1,2}))?(?=-|$)/.exec(id);
  if (!after) return null;
  return { major: Number(after[1]), minor: after[2] === undefined ? 0 : Number(after[2]) };
}

const version = (test: (v: { major: number; minor: number }) => boolean) => (id: string) => {
  const v = claudeVersion(id);
  return v !== null && test(v);
};

export const ANTHROPIC_RULES: readonly FamilyRule[] = [
  { family: CLAUDE_ADAPTIVE_ONLY, dialects: ["a_messages"], match: version((v) => v.major >= 5 || (v.major === 4 && v.minor >= 7)) },
  { family: CLAUDE_ADAPTIVE, dialects: ["a_messages"], match: version((v) => v.major === 4 && v.minor === 6) },
  { family: CLAUDE_BUDGET, dialects: ["a_messages"], match: version((v) => v.major === 4) },
  { family: CLAUDE_LEGACY, dialects: ["a_messages"], match: version((v) => v.major < 4) },
  { family: CLAUDE_VIA_CHAT, dialects: ["b_chat_completions"], match: version(() => true) },
];
