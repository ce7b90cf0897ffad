// Facets as ACP session modes, and the model and its reasoning level as session config options
// (categories "model" and "thought_level", the stable v1 way to choose them). Both read the daemon
// catalog and the snapshot's `active` facet and model (`name` or `name(level)`); switching goes through
// the session commands /facet and /model, so every client of the session sees the same facet_changed /
// model_changed records.
import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import type { ActiveMode } from "../protocol/sync-shapes.ts";

export interface CatalogModel {
  name: string;
  provider_name?: string;
  provider?: string;
  /** The model's reasoning capability (the config's `reasoning`): effort models have levels. */
  reasoning?: { type: string; levels?: string[]; default_level?: string | null };
}

export interface CatalogView {
  facets: { name: string; description?: string; unavailable?: boolean }[];
  models: CatalogModel[];
}

export const MODEL_OPTION = "model";
export const REASONING_OPTION = "reasoning";
/** The reasoning value of an effort model without a default level: no level is sent (the provider's own). */
export const PROVIDER_DEFAULT_LEVEL = "default";

const SUFFIX = /\(([^()]*)\)$/;

/** `name(level)` -> name. */
export function modelName(ref: string): string {
  return ref.replace(SUFFIX, "");
}

/** `name(level)` -> level; `name` -> null (the model's default level). */
export function modelLevel(ref: string): string | null {
  return SUFFIX.exec(ref)?.[1]?.trim() || null;
}

/** The reasoning levels the model takes, with its default; null when it takes none. */
export function reasoningLevels(catalog: CatalogView, model: string): { levels: string[]; defaultLevel: string | null } | null {
  const r = catalog.models.find((m) => m.name === model)?.reasoning;
  if (r?.type !== "effort" || !r.levels || r.levels.length === 0) return null;
  return { levels: r.levels, defaultLevel: r.default_level ?? null };
}

/**
 * The model reference that selects reasoning level `value` on `model` (`/model` takes it): `name(level)`,
 * or `name` for the provider's default. Throws a message when the model takes no such level.
 */
export function levelRef(catalog: CatalogView, model: string, value: string): string {
  const r = reasoningLevels(catalog, model);
  if (!r) throw new Error(`model '${model}' takes no reasoning level`);
  if (value === PROVIDER_DEFAULT_LEVEL && r.defaultLevel === null) return model;
  if (!r.levels.includes(value)) throw new Error(`'${value}' is not a reasoning level of model '${model}'; levels: ${r.levels.join(", ")}`);
  return `${model}(${value})`;
}

export function modeState(catalog: CatalogView, active: ActiveMode | null): SessionModeState | null {
  const facets = catalog.facets.filter((f) => !f.unavailable);
  if (!active || facets.length === 0) return null;
  return {
    currentModeId: active.facet,
    availableModes: facets.map((f) => ({ id: f.name, name: f.name, ...(f.description ? { description: f.description } : {}) })),
  };
}

export function configOptions(catalog: CatalogView, active: ActiveMode | null): SessionConfigOption[] {
  if (!active || catalog.models.length === 0) return [];
  const current = modelName(active.model);
  const options = catalog.models.map((m) => ({ value: m.name, name: m.name, ...(m.provider_name || m.provider ? { description: `${m.provider_name ?? m.provider}` } : {}) }));
  if (!options.some((o) => o.value === current)) options.unshift({ value: current, name: current });
  const out: SessionConfigOption[] = [{ id: MODEL_OPTION, name: "Model", category: "model", type: "select", currentValue: current, options }];
  const reasoning = reasoningLevels(catalog, current);
  if (reasoning) {
    const levels = reasoning.levels.map((l) => ({ value: l, name: l, ...(l === reasoning.defaultLevel ? { description: "the model's default" } : {}) }));
    if (reasoning.defaultLevel === null) levels.unshift({ value: PROVIDER_DEFAULT_LEVEL, name: "default", description: "the provider's default (no level sent)" });
    const level = modelLevel(active.model) ?? reasoning.defaultLevel ?? PROVIDER_DEFAULT_LEVEL;
    if (!levels.some((l) => l.value === level)) levels.push({ value: level, name: level });
    out.push({ id: REASONING_OPTION, name: "Reasoning", category: "thought_level", type: "select", currentValue: level, options: levels });
  }
  return out;
}
