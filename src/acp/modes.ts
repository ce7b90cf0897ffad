// Facets as ACP session modes, and the model as a session config option (category "model", the stable
// v1 way to choose a model). Both read the daemon catalog and the snapshot's `active` facet and model;
// switching goes through the session commands /facet and /model, so every client of the session sees
// the same facet_changed / model_changed records.
import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import type { ActiveMode } from "../protocol/sync-shapes.ts";

export interface CatalogView {
  facets: { name: string; description?: string; unavailable?: boolean }[];
  models: { name: string; provider_name?: string; provider?: string }[];
}

export const MODEL_OPTION = "model";

/** `name(level)` -> name. */
export function modelName(ref: string): string {
  return ref.replace(/\([^()]*\)$/, "");
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
  return [{ id: MODEL_OPTION, name: "Model", category: "model", type: "select", currentValue: current, options }];
}
