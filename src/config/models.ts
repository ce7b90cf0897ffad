// The model table: built-in catalog models of configured catalog providers, then `models` overrides
// (partial overlays, `inherits`, new custom models, `enabled: false`), then derived values.
import type { Static } from "@sinclair/typebox";
import { didYouMean } from "../util/did-you-mean.ts";
import { catalogNames, catalogProvider, type CatalogProvider } from "../providers/catalog.ts";
import { catalogModelKey, LEGACY_MODEL_ALIASES, legacyAliasTarget, modelCatalog, type CatalogModel, type ModelCatalog } from "../providers/model-catalog.ts";
import { allFamilies, type ModelApiOverride } from "../providers/families/resolve.ts";
import type { AppConfig } from "./schema.ts";
import type { ModelOverride, ModelReasoning } from "./schema/models.ts";
import { REQUEST_OPTION_MAX_BYTES } from "./schema/models.ts";
import { deriveCompactionThreshold, deriveMaxOutputTokensPerTurn, deriveMaxToolBatchSize } from "./derived.ts";
import type { ProblemList } from "./problems.ts";

export type ModelClassName = "full" | "mini" | "nano";
type Override = Static<typeof ModelOverride>;

export interface ResolvedModel {
  key: string;
  /** Key of the configured provider the model is called through. */
  provider: string;
  provider_name: string;
  class: ModelClassName;
  variant: "family_a" | "family_b" | "family_c" | "other";
  context_window: number;
  max_tokens: number | null;
  max_output_tokens_per_turn: number;
  compaction_threshold: number;
  max_tool_batch_size: number;
  tool_loading: "eager" | "native_deferred" | "no_tools";
  supports_vision: boolean;
  forced_tool_choice_supported: boolean;
  reasoning: Static<typeof ModelReasoning>;
  edit_format: string | null;
  stop_sequences: string[];
  request_option_defaults: Record<string, boolean | string>;
  /** `models.<key>.api`: overrides of the family description request building reads (providers/families). */
  api: ModelApiOverride | null;
  /** Catalog models: where models.dev says the reasoning goes back (used when no model family matches). */
  interleaved: CatalogModel["interleaved"] | null;
  origin: "catalog" | "custom" | "inherited";
  /** Fields whose value was computed rather than written (max_output_tokens_per_turn, ...). */
  derived: string[];
  /** USD per million tokens from the model catalog (catalog models only; unknown: null or absent). */
  cost?: CatalogModel["cost"];
}

/** An overlay for a model a provider reports at runtime (`<provider>/<model id>` keys); applied on discovery. */
export interface PendingOverlay {
  key: string;
  provider: string;
  override: Override;
}

export interface ModelTable {
  models: Map<string, ResolvedModel>;
  pending: PendingOverlay[];
  /** Other names of catalog models: legacy letter names (`a-large`) and bare model ids, -> model key. */
  aliases?: Map<string, string>;
}

/** The key `name` selects: a model key, else a legacy letter name or a model id offered by one provider. */
export function findModelKey(table: ModelTable, name: string): string | undefined {
  if (table.models.has(name)) return name;
  const alias = table.aliases?.get(name);
  if (alias && table.models.has(alias)) return alias;
  return undefined;
}

/** Fields `inherits` copies from the parent: provider identity, class metadata, window, request defaults. */
const INHERITED_FIELDS = [
  "provider", "provider_name", "class", "variant", "max_tokens", "reasoning", "supports_vision",
  "tool_loading", "edit_format", "forced_tool_choice_supported", "context_window", "request_option_defaults",
  "api",
] as const;

function defined(o: Override): Partial<Override> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<Override>;
}

/** Configured catalog providers: provider key -> catalog entry (unknown names are reported). */
function configuredCatalog(config: AppConfig, out: ProblemList): Map<string, CatalogProvider> {
  const map = new Map<string, CatalogProvider>();
  for (const [key, provider] of Object.entries(config.providers ?? {})) {
    if (provider?.kind?.type !== "catalog") continue;
    const name = provider.kind.name;
    const entry = catalogProvider(name);
    if (!entry) {
      out.error(["providers", key, "kind", "name"], `unknown catalog provider '${name}'${didYouMean(name, catalogNames(), "'")}`, {
        allowed: catalogNames().join(", "),
      });
    } else {
      map.set(key, entry);
    }
  }
  return map;
}

type Base = Partial<Override> & { origin: ResolvedModel["origin"]; interleaved?: CatalogModel["interleaved"] };

/** Catalog models of every configured catalog provider, and their other names (legacy letters, bare ids). */
function catalogBase(catalog: Map<string, CatalogProvider>, models: ModelCatalog): { base: Map<string, Base>; aliases: Map<string, string>; costs: Map<string, CatalogModel["cost"]> } {
  const base = new Map<string, Base>();
  const costs = new Map<string, CatalogModel["cost"]>();
  const aliases = new Map<string, string>();
  const bareCount = new Map<string, number>();
  for (const [providerKey, entry] of catalog) {
    for (const m of models.models(entry)) {
      const { cost, title: _t, ...fields } = m;
      const key = catalogModelKey(entry, providerKey, m.provider_name);
      if (base.has(key)) continue;
      base.set(key, { ...fields, provider: providerKey, origin: "catalog" });
      costs.set(key, cost);
      if (key !== m.provider_name) {
        bareCount.set(m.provider_name, (bareCount.get(m.provider_name) ?? 0) + 1);
        aliases.set(m.provider_name, key);
      }
    }
  }
  for (const [bare, n] of bareCount) if (n > 1) aliases.delete(bare);
  for (const legacy of Object.keys(LEGACY_MODEL_ALIASES)) {
    const target = legacyAliasTarget(legacy)!;
    const providerKey = [...catalog].find(([, e]) => e === target.entry)?.[0];
    if (providerKey) aliases.set(legacy, catalogModelKey(target.entry, providerKey, target.id));
  }
  return { base, aliases, costs };
}

export function resolveModels(config: AppConfig, out: ProblemList, models: ModelCatalog = modelCatalog(null)): ModelTable {
  const providers = config.providers ?? {};
  const catalog = configuredCatalog(config, out);
  const { base, aliases, costs } = catalogBase(catalog, models);
  const overrides: Record<string, Override> = Object.create(null);
  // An override may name a catalog model by another name (`a-large`, a bare id): it overlays that model.
  for (const [k, v] of Object.entries(config.models ?? {})) {
    const target = base.has(k) ? undefined : aliases.get(k);
    const overlays = target !== undefined && !Object.hasOwn(config.models ?? {}, target) && (!v.provider || v.provider === base.get(target)?.provider);
    overrides[overlays ? target : k] = v;
  }
  const resolved = new Map<string, (Partial<Override> & { origin: ResolvedModel["origin"] }) | null>();
  const pending: PendingOverlay[] = [];

  const resolveKey = (key: string, chain: string[]): (Partial<Override> & { origin: ResolvedModel["origin"] }) | null => {
    if (resolved.has(key)) return resolved.get(key)!;
    const override = overrides[key];
    if (!override) return base.get(key) ?? null;
    if (chain.includes(key)) {
      out.error(["models", key, "inherits"], `inherits cycle: ${[...chain.slice(chain.indexOf(key)), key].join(" -> ")}`);
      resolved.set(key, null);
      return null;
    }
    let model: (Partial<Override> & { origin: ResolvedModel["origin"] }) | null;
    if (override.inherits) {
      const named = override.inherits;
      const parentKey = overrides[named] || base.has(named) ? named : (aliases.get(named) ?? named);
      const parent = overrides[parentKey] || base.has(parentKey) ? resolveKey(parentKey, [...chain, key]) : null;
      if (!parent) {
        if (!overrides[parentKey] && !base.has(parentKey)) {
          const known = [...new Set([...Object.keys(overrides), ...base.keys(), ...aliases.keys()])].filter((k) => k !== key);
          out.error(["models", key, "inherits"], `unknown parent model '${parentKey}'${didYouMean(parentKey, known, "'")}`);
        }
        resolved.set(key, null);
        return null;
      }
      const inherited: Partial<Override> = {};
      for (const f of INHERITED_FIELDS) if (parent[f] !== undefined) (inherited as Record<string, unknown>)[f] = parent[f];
      model = {
        ...inherited,
        ...defined(override),
        request_option_defaults: { ...parent.request_option_defaults, ...override.request_option_defaults },
        origin: "inherited",
      };
    } else if (base.has(key)) {
      const b = base.get(key)!;
      model = { ...b, ...defined(override), request_option_defaults: { ...b.request_option_defaults, ...override.request_option_defaults }, origin: "catalog" };
    } else {
      model = { ...defined(override), origin: "custom" };
    }
    resolved.set(key, model);
    return model;
  };

  const table = new Map<string, ResolvedModel>();
  const keys = [...new Set([...base.keys(), ...Object.keys(overrides)])];
  for (const key of keys) {
    const m = resolveKey(key, []);
    if (!m) continue;
    const path = ["models", key];
    const override = overrides[key];
    const legacy = m.origin === "custom" && !override?.inherits ? legacyAliasTarget(key) : null;
    if (legacy) {
      const owner = legacy.entry.name;
      out.error(path, `catalog model '${key}' belongs to catalog provider '${owner}', which is not configured`, {
        allowed: `add a provider with kind: {type: catalog, name: ${owner}}`,
      });
      continue;
    }
    if (m.origin === "custom") {
      const slash = key.indexOf("/");
      const qualifier = slash > 0 ? key.slice(0, slash) : undefined;
      const discoverable = qualifier !== undefined && Object.hasOwn(providers, qualifier) && (!m.provider || m.provider === qualifier);
      if (discoverable && (m.class === undefined || m.context_window === undefined)) {
        pending.push({ key, provider: qualifier, override: override! });
        continue;
      }
      if (!m.provider) out.error([...path, "provider"], "a custom model (one not in the catalog) needs 'provider'", { allowed: Object.keys(providers).join(", ") || "a key of 'providers'" });
      if (!m.class) out.error([...path, "class"], "a custom model (one not in the catalog) needs 'class'", { allowed: "full, mini, nano" });
    }
    if (m.context_window === undefined) {
      out.error([...path, "context_window"], "every model needs 'context_window' (its context size in tokens)");
    }
    if (m.provider && !Object.hasOwn(providers, m.provider)) {
      out.error([...path, "provider"], `'${m.provider}' is not a configured provider${didYouMean(m.provider, Object.keys(providers), "'")}`, {
        allowed: Object.keys(providers).join(", ") || "a key of 'providers' (none are configured)",
      });
    }
    checkModelLimits(m, path, out);
    if (m.enabled === false || !m.provider || !m.class || m.context_window === undefined) continue;
    table.set(key, { ...finish(key, m), cost: m.origin === "catalog" ? (costs.get(key) ?? null) : null });
  }
  return { models: table, pending, aliases };
}

function checkModelLimits(m: Partial<Override>, path: (string | number)[], out: ProblemList): void {
  if (m.max_tokens && m.max_output_tokens_per_turn && m.max_output_tokens_per_turn > m.max_tokens) {
    out.error([...path, "max_output_tokens_per_turn"], `${m.max_output_tokens_per_turn} exceeds max_tokens (${m.max_tokens})`, {
      allowed: `at most ${m.max_tokens}`,
    });
  }
  const r = m.reasoning;
  if (r?.type === "effort" && r.default_level && !r.levels.includes(r.default_level)) {
    out.error([...path, "reasoning", "default_level"], `'${r.default_level}' is not one of the levels${didYouMean(r.default_level, r.levels, "'")}`, {
      allowed: r.levels.join(", ") || "(no levels are listed)",
    });
  }
  const family = m.api?.family;
  if (family && !allFamilies().some((f) => f.id === family)) {
    const ids = allFamilies().map((f) => f.id);
    out.error([...path, "api", "family"], `unknown model family '${family}'${didYouMean(family, ids, "'")}`, { allowed: ids.join(", ") });
  }
  for (const [name, value] of Object.entries(m.request_option_defaults ?? {})) {
    if (typeof value === "string") {
      const bytes = Buffer.byteLength(value, "utf8");
      if (bytes > REQUEST_OPTION_MAX_BYTES) {
        out.error([...path, "request_option_defaults", name], `is ${bytes} bytes of UTF-8`, { allowed: `at most ${REQUEST_OPTION_MAX_BYTES} bytes` });
      }
    }
  }
}

function finish(key: string, m: Base): ResolvedModel {
  const derived: string[] = [];
  const window = m.context_window!;
  const cls = m.class!;
  let maxOut = m.max_output_tokens_per_turn;
  if (!maxOut) {
    maxOut = deriveMaxOutputTokensPerTurn(window, m.max_tokens);
    derived.push("max_output_tokens_per_turn");
  }
  let threshold = m.compaction_threshold;
  if (threshold === undefined || threshold === null) {
    threshold = deriveCompactionThreshold(window, cls, maxOut);
    derived.push("compaction_threshold");
  }
  let batch = m.max_tool_batch_size;
  if (!batch) {
    batch = deriveMaxToolBatchSize(window);
    derived.push("max_tool_batch_size");
  }
  return {
    key,
    provider: m.provider!,
    provider_name: m.provider_name ?? key,
    class: cls,
    variant: m.variant ?? "other",
    context_window: window,
    max_tokens: m.max_tokens ?? null,
    max_output_tokens_per_turn: maxOut,
    compaction_threshold: threshold,
    max_tool_batch_size: batch,
    tool_loading: m.tool_loading ?? "eager",
    supports_vision: m.supports_vision ?? false,
    forced_tool_choice_supported: m.forced_tool_choice_supported ?? true,
    reasoning: m.reasoning ?? { type: "no_reasoning" },
    edit_format: m.edit_format ?? null,
    stop_sequences: m.stop_sequences ?? [],
    request_option_defaults: m.request_option_defaults ?? {},
    api: m.api ?? null,
    interleaved: m.origin === "catalog" ? (m.interleaved ?? null) : null,
    origin: m.origin,
    derived,
  };
}
