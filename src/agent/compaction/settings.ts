// How a session compacts: which model writes the summaries (the session's own, or the `mini` tier as the
// autonomous classifier resolves it when `daemon.compaction_model: mini`), how much context is worth
// carrying, how often a failed pass is retried, and whether /clear is allowed.
import { parseModelRef } from "../../config/defaults.ts";
import type { LoadedConfig } from "../../config/load.ts";
import type { ResolvedModel } from "../../config/models.ts";
import { catalogDefaults } from "../../providers/catalog.ts";
import type { ReasoningRequest } from "../../providers/request.ts";
import { resolveProvider, type ResolvedProvider } from "../../providers/resolve.ts";
import type { ProviderSettings } from "../../providers/settings.ts";

/** Built-in default of `daemon.compaction_max_retries` (the spec leaves it open; docs/decisions-engine.md). */
export const DEFAULT_COMPACTION_MAX_RETRIES = 3;

/**
 * Built-in default of `daemon.compaction_context_cap`: past about 200k tokens a model's attention to the
 * middle of its context thins out and every request costs the whole context again, so a 1M-token window
 * compacts there instead of near 800k (docs/decisions-engine.md).
 */
export const DEFAULT_COMPACTION_CONTEXT_CAP = 200_000;

export interface Summarizer {
  model: ResolvedModel;
  provider: ResolvedProvider;
  reasoning: ReasoningRequest | null;
}

export interface CompactionSettings {
  /** The model that writes summaries; null: the session's own model, over the session's own request. */
  summarizer: Summarizer | null;
  /** Tokens at which compaction starts even below the model's threshold; 0: no cap. */
  contextCap: number;
  /** Retries after a failed summary call (0: one attempt only). */
  maxRetries: number;
  /** `daemon.disable_context_clear`: /clear is refused (compaction is unaffected). */
  clearDisabled: boolean;
}

/**
 * The session's model summarizes unless `daemon.compaction_model: mini` asks for `defaults.mini` (which
 * falls back to `defaults.full`); without either, or when that model cannot be called, the session's
 * model summarizes (a warning says why).
 */
export function compactionSettings(loaded: LoadedConfig, warnings: string[]): CompactionSettings {
  const daemon = loaded.config.daemon ?? {};
  return {
    summarizer: daemon.compaction_model === "mini" ? resolveSummarizer(loaded, warnings) : null,
    contextCap: daemon.compaction_context_cap ?? DEFAULT_COMPACTION_CONTEXT_CAP,
    maxRetries: daemon.compaction_max_retries ?? DEFAULT_COMPACTION_MAX_RETRIES,
    clearDisabled: daemon.disable_context_clear ?? false,
  };
}

function resolveSummarizer(loaded: LoadedConfig, warnings: string[]): Summarizer | null {
  const choice = loaded.defaults.mini;
  if (!choice) return null;
  const model = loaded.models.models.get(parseModelRef(choice.model).name);
  const settings = model ? (loaded.config.providers?.[model.provider] as ProviderSettings | undefined) : undefined;
  if (!model || !settings) {
    warnings.push(`compaction: the mini model '${choice.model}' is not available; the session's model writes the summaries`);
    return null;
  }
  try {
    const provider = resolveProvider(model.provider, settings, catalogDefaults(settings));
    const reasoning: ReasoningRequest | null = model.reasoning.type === "effort" && choice.effort ? { effort: choice.effort, enabled: true } : null;
    return { model, provider, reasoning };
  } catch (error) {
    warnings.push(`compaction: the mini model '${model.key}' cannot be called (${(error as Error).message}); the session's model writes the summaries`);
    return null;
  }
}
