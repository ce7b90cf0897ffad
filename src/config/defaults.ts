// `defaults.full/mini/nano`: a model name with an optional effort suffix `name(level)`. Precedence for
// each tier: what the config sets; when `full` is unset, the catalog's default models of the first
// configured catalog provider that has them (what a key alone would choose); then the fallbacks
// nano -> mini -> full; a `full` still unset takes the first model of class full.
import { catalogProvider } from "../providers/catalog.ts";
import { catalogModelKey } from "../providers/model-catalog.ts";
import { didYouMean } from "../util/did-you-mean.ts";
import { findModelKey, type ModelClassName, type ModelTable, type ResolvedModel } from "./models.ts";
import type { ProblemList } from "./problems.ts";
import type { AppConfig } from "./schema.ts";

export interface ModelChoice {
  model: string;
  /** Reasoning effort chosen by the suffix, else the model's default level. */
  effort: string | null;
  /**
   * Where the choice came from: the tier's own setting, the catalog's default of the named provider key,
   * a fallback tier, or the first model of the class.
   */
  source: "configured" | `catalog:${string}` | `fallback:${ModelClassName}` | "first_of_class";
}

export type TierDefaults = Partial<Record<ModelClassName, ModelChoice>>;

const SUFFIX = /^(.*)\(([^()]*)\)$/;

export function parseModelRef(ref: string): { name: string; level: string | null } {
  const m = SUFFIX.exec(ref.trim());
  return m ? { name: m[1]!.trim(), level: m[2]!.trim() } : { name: ref.trim(), level: null };
}

function defaultEffort(model: ResolvedModel): string | null {
  return model.reasoning.type === "effort" ? (model.reasoning.default_level ?? null) : null;
}

function choose(tier: ModelClassName, ref: string, table: ModelTable, out: ProblemList): ModelChoice | undefined {
  const path = ["defaults", tier];
  const parsed = parseModelRef(ref);
  const level = parsed.level;
  const name = findModelKey(table, parsed.name) ?? parsed.name;
  const model = table.models.get(name);
  if (!model) {
    const pending = table.pending.some((p) => p.key === name);
    if (pending) return { model: name, effort: level, source: "configured" };
    out.error(path, `unknown model '${name}'${didYouMean(name, table.models.keys(), "'")}`, {
      allowed: [...table.models.keys()].join(", ") || "(no models are available: configure a provider)",
    });
    return undefined;
  }
  if (level === null) return { model: name, effort: defaultEffort(model), source: "configured" };
  if (model.reasoning.type !== "effort") {
    out.error(path, `model '${name}' does not take an effort level (its reasoning type is ${model.reasoning.type}); remove '(${level})'`);
    return undefined;
  }
  if (!model.reasoning.levels.includes(level)) {
    out.error(path, `'${level}' is not an effort level of model '${name}'${didYouMean(level, model.reasoning.levels, "'")}`, {
      allowed: model.reasoning.levels.join(", "),
    });
    return undefined;
  }
  return { model: name, effort: level, source: "configured" };
}

/**
 * The catalog's default models of the first provider in `providers` (in the config's order) whose kind
 * is a catalog entry with defaults and whose default full model is in the table: the key a catalog
 * provider was configured under names its models, so the keys are built from it.
 */
function catalogChoices(config: AppConfig, table: ModelTable): TierDefaults {
  for (const [key, provider] of Object.entries(config.providers ?? {})) {
    if (provider?.kind?.type !== "catalog") continue;
    const entry = catalogProvider(provider.kind.name);
    if (!entry?.defaults) continue;
    const result: TierDefaults = {};
    for (const tier of ["full", "mini", "nano"] as const) {
      const id = entry.defaults[tier];
      const model = id ? table.models.get(catalogModelKey(entry, key, id)) : undefined;
      if (model?.provider === key) result[tier] = { model: model.key, effort: defaultEffort(model), source: `catalog:${key}` };
    }
    if (result.full) return result;
  }
  return {};
}

export function resolveDefaults(config: AppConfig, table: ModelTable, out: ProblemList): TierDefaults {
  const result: TierDefaults = {};
  for (const tier of ["full", "mini", "nano"] as const) {
    const ref = config.defaults?.[tier];
    if (ref) {
      const c = choose(tier, ref, table, out);
      if (c) result[tier] = c;
    }
  }
  if (!config.defaults?.full) {
    const catalog = catalogChoices(config, table);
    for (const tier of ["full", "mini", "nano"] as const) if (!config.defaults?.[tier] && catalog[tier]) result[tier] = catalog[tier];
  }
  if (!result.full) {
    const first = [...table.models.values()].find((m) => m.class === "full");
    if (first && !config.defaults?.full) result.full = { model: first.key, effort: defaultEffort(first), source: "first_of_class" };
  }
  if (!result.mini && !config.defaults?.mini && result.full) result.mini = { ...result.full, source: "fallback:full" };
  if (!result.nano && !config.defaults?.nano) {
    const from = result.mini ?? result.full;
    if (from) result.nano = { ...from, source: result.mini && result.mini.source !== "fallback:full" ? "fallback:mini" : "fallback:full" };
  }
  return result;
}
