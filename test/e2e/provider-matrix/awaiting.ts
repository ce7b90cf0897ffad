// Cells that fail because a product fix has not landed yet, each with the fix it waits for. Such a cell
// is reported as skipped with that reason (never dropped silently); remove its line with the fix.
const ADAPTIVE = "Anthropic adaptive thinking for Claude 4.7+ (issue 33 finding 1: the vendor refuses thinking.type enabled)";
const REPLAY = "reasoning_content replayed on assistant tool-call messages (issue 33 finding 2: the vendor refuses the second request)";

export const AWAITING_FIX: Readonly<Record<string, string>> = {
  "anthropic-claude-sonnet-5-medium": ADAPTIVE,
  "anthropic-claude-sonnet-5-max": ADAPTIVE,
  "anthropic-claude-sonnet-5-medium-image": ADAPTIVE,
  "deepseek-deepseek-v4-pro-high": REPLAY,
  "deepseek-deepseek-v4-pro-max": REPLAY,
  "deepseek-deepseek-v4-flash-high": REPLAY,
  "deepseek-deepseek-v4-flash-max": REPLAY,
  "moonshot-kimi-k2.6-thinking": REPLAY,
  "moonshot-kimi-k2.6-thinking-image": REPLAY,
};
