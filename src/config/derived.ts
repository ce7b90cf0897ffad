// Values computed from a model's context window when the config does not set them.
// The formulas are documented in docs/config.md ("Derived values").
import type { ModelClassName } from "./models.ts";

/** Tokens kept free below the context window before compaction, per tier: share of the window and a floor. */
export const COMPACTION_RESERVE: Record<ModelClassName, { share: number; floor: number }> = {
  full: { share: 0.2, floor: 16_384 },
  mini: { share: 0.15, floor: 8_192 },
  nano: { share: 0.1, floor: 4_096 },
};

/** Per-turn output limit: an eighth of the window in whole KiB of tokens, 1024..32768, never above max_tokens. */
export function deriveMaxOutputTokensPerTurn(contextWindow: number, maxTokens: number | null | undefined): number {
  const eighth = Math.floor(contextWindow / 8 / 1024) * 1024;
  const derived = Math.min(32_768, Math.max(1024, eighth));
  return maxTokens ? Math.min(derived, maxTokens) : derived;
}

/**
 * Share of the window at which compaction triggers: (window - reserve) / window, rounded down to two
 * decimals. The reserve is the tier's share (at least its floor), grown to fit the per-turn output
 * limit, and never more than half the window so tiny windows still get a usable threshold.
 */
export function deriveCompactionThreshold(contextWindow: number, tier: ModelClassName, maxOutputPerTurn: number): number {
  if (contextWindow <= 0) return 0.5;
  const { share, floor } = COMPACTION_RESERVE[tier];
  const reserve = Math.min(Math.max(Math.ceil(contextWindow * share), floor, maxOutputPerTurn), Math.floor(contextWindow / 2));
  return Math.floor(((contextWindow - reserve) / contextWindow) * 100) / 100;
}

/** Tool calls per assistant message: 4 for unknown or small windows, one more per step up to 8. */
export function deriveMaxToolBatchSize(contextWindow: number | null | undefined): number {
  if (!contextWindow || contextWindow <= 64_000) return 4;
  if (contextWindow <= 128_000) return 5;
  if (contextWindow <= 200_000) return 6;
  if (contextWindow <= 400_000) return 7;
  return 8;
}
