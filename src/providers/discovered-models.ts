// Discovered models: what a provider's models endpoint reports becomes selectable models, and the
// `models.<provider>/<id>` overlays that were pending (spec: "the overlay applies once the provider
// reports the model") apply now. The engine calls this after `listProviderModels`.
import { resolveModels, type ModelTable, type ResolvedModel } from "../config/models.ts";
import { formatPath, ProblemList } from "../config/problems.ts";
import type { AppConfig } from "../config/schema.ts";
import type { DiscoveredModel } from "./models-list.ts";

export interface SkippedModel {
  key: string;
  reason: string;
}

export interface DiscoveryResult {
  /** A new table: the input's models plus the offered discovered ones; overlays applied are no longer pending. */
  table: ModelTable;
  /** Reported models that are not offered, and why. */
  skipped: SkippedModel[];
}

/**
 * Class of a discovered model whose overlay sets none. The spec calls the class of discovered models
 * informational (the provider's capabilities decide default slots); it still picks the compaction reserve.
 */
export const DISCOVERED_DEFAULT_CLASS = "full";

/** The key a discovered model is selected by: `<provider key>/<model id>`. */
export const discoveredKey = (provider: string, id: string): string => `${provider}/${id}`;

/**
 * Adds the models `provider` reported to the table. Reported values (id, context window, output ceiling)
 * are the base; the overlay's set fields replace them, and the overlay is checked and its derived values
 * computed by the same resolution as authored models (src/config/models.ts).
 */
export function applyDiscoveredModels(table: ModelTable, provider: string, discovered: readonly DiscoveredModel[]): DiscoveryResult {
  const models = new Map(table.models);
  const consumed = new Set<string>();
  const skipped: SkippedModel[] = [];
  const seen = new Set<string>();
  for (const d of discovered) {
    const key = discoveredKey(provider, d.id);
    if (seen.has(key)) continue;
    seen.add(key);
    const overlay = table.pending.find((p) => p.provider === provider && p.key === key);
    if (models.has(key)) continue; // an authored model of that key is already complete
    if (!overlay) {
      const twin = [...models.values()].find((m) => m.provider === provider && m.provider_name === d.id);
      if (twin) {
        skipped.push({ key, reason: `already offered as '${twin.key}'` });
        continue;
      }
    }
    if (overlay) consumed.add(overlay.key);
    const resolved = resolveDiscovered(key, provider, d, overlay?.override);
    if ("reason" in resolved) skipped.push({ key, reason: resolved.reason });
    else models.set(key, resolved.model);
  }
  return { table: { models, pending: table.pending.filter((p) => !consumed.has(p.key)) }, skipped };
}

type Override = NonNullable<AppConfig["models"]>[string];

function resolveDiscovered(key: string, provider: string, d: DiscoveredModel, override: Override | undefined): { model: ResolvedModel } | { reason: string } {
  const set = Object.fromEntries(Object.entries(override ?? {}).filter(([, v]) => v !== undefined && v !== null)) as Partial<Override>;
  if (set.enabled === false) return { reason: `disabled by ${formatPath(["models", key, "enabled"])}: false` };
  const reportedMax = d.max_output_tokens ?? undefined;
  const merged: Override = {
    provider,
    provider_name: d.id,
    class: DISCOVERED_DEFAULT_CLASS,
    ...(d.context_window !== null ? { context_window: d.context_window } : {}),
    // A reported ceiling below an authored per-turn limit must not make the overlay invalid.
    ...(reportedMax !== undefined && !(set.max_output_tokens_per_turn && set.max_output_tokens_per_turn > reportedMax) ? { max_tokens: reportedMax } : {}),
    ...set,
  };
  if (merged.context_window === undefined || merged.context_window === null)
    return { reason: `the provider reports no context window for '${d.id}'; set ${formatPath(["models", key, "context_window"])}` };
  // The provider entry only has to exist for resolution; its settings play no part in a model's fields.
  const config = { providers: { [provider]: { kind: { type: "custom_b_compatible" } } }, models: { [key]: merged } } as AppConfig;
  const problems = new ProblemList();
  const model = resolveModels(config, problems).models.get(key);
  if (problems.errors.length > 0 || !model) return { reason: problems.errors.map((p) => `${p.path}: ${p.message}`).join("; ") || "could not be resolved" };
  return { model };
}
