// The built-in catalog: providers resolvable with `kind: {type: catalog, name}` and the models they
// offer out of the box. Vendor names are neutral letters, as in the spec; see docs/decisions.md.
import type { Static } from "@sinclair/typebox";
import type { ModelOverride } from "../config/schema/models.ts";
import { PROTOCOLS, type ProviderProtocol } from "./protocols.ts";

export interface CatalogProvider {
  name: string;
  protocol: ProviderProtocol;
  summary: string;
}

/** A catalog model: a complete ModelOverride (every field the engine needs) plus its catalog provider. */
export type CatalogModel = Static<typeof ModelOverride> & {
  provider_name: string;
  class: "full" | "mini" | "nano";
  context_window: number;
  catalogProvider: string;
};

/** One catalog provider per protocol, named by the protocol's vendor letter (`test` for the offline one). */
export const CATALOG_PROVIDERS: readonly CatalogProvider[] = PROTOCOLS.map((protocol) => ({
  name: protocol === "test" ? "test" : protocol.split("_")[0]!,
  protocol,
  summary: protocol === "test" ? "Scripted offline demo provider (no network, no account)" : `Catalog provider speaking ${protocol}`,
})).filter((p, i, all) => all.findIndex((q) => q.name === p.name) === i);

const effort = (levels: string[], defaultLevel: string, canDisable = false) =>
  ({ type: "effort", effort_set: "standard", can_disable: canDisable, levels, default_level: defaultLevel }) as const;

export const CATALOG_MODELS: Readonly<Record<string, CatalogModel>> = {
  "a-large": {
    catalogProvider: "a", provider_name: "a-large", variant: "family_a", class: "full",
    context_window: 200_000, max_tokens: 64_000, reasoning: { type: "thinking", can_disable: true },
    supports_vision: true, tool_loading: "eager",
  },
  "a-medium": {
    catalogProvider: "a", provider_name: "a-medium", variant: "family_a", class: "mini",
    context_window: 200_000, max_tokens: 64_000, reasoning: { type: "thinking", can_disable: true },
    supports_vision: true, tool_loading: "eager",
  },
  "a-small": {
    catalogProvider: "a", provider_name: "a-small", variant: "family_a", class: "nano",
    context_window: 200_000, max_tokens: 8_192, reasoning: { type: "no_reasoning" },
    supports_vision: true, tool_loading: "eager",
  },
  "b-large": {
    catalogProvider: "b", provider_name: "b-large", variant: "family_b", class: "full",
    context_window: 400_000, max_tokens: 128_000, reasoning: effort(["minimal", "low", "medium", "high"], "medium"),
    supports_vision: true, tool_loading: "native_deferred", edit_format: "patch",
  },
  "b-mini": {
    catalogProvider: "b", provider_name: "b-mini", variant: "family_b", class: "mini",
    context_window: 400_000, max_tokens: 128_000, reasoning: effort(["minimal", "low", "medium", "high"], "low"),
    supports_vision: true, tool_loading: "eager", edit_format: "patch",
  },
  "b-nano": {
    catalogProvider: "b", provider_name: "b-nano", variant: "family_b", class: "nano",
    context_window: 400_000, max_tokens: 128_000, reasoning: effort(["minimal", "low", "medium", "high"], "minimal"),
    supports_vision: false, tool_loading: "eager", edit_format: "patch",
  },
  "c-codex": {
    catalogProvider: "c", provider_name: "c-codex", variant: "family_c", class: "full",
    context_window: 272_000, max_tokens: 128_000, reasoning: effort(["low", "medium", "high", "xhigh"], "medium"),
    supports_vision: true, tool_loading: "eager", edit_format: "patch",
  },
  "c-codex-mini": {
    catalogProvider: "c", provider_name: "c-codex-mini", variant: "family_c", class: "mini",
    context_window: 272_000, max_tokens: 128_000, reasoning: effort(["low", "medium", "high"], "medium"),
    supports_vision: true, tool_loading: "eager", edit_format: "patch",
  },
  "test-scripted": {
    catalogProvider: "test", provider_name: "test-scripted", variant: "other", class: "full",
    context_window: 128_000, max_tokens: 16_384, reasoning: { type: "no_reasoning" },
    supports_vision: false, tool_loading: "eager",
  },
};

export function catalogProvider(name: string): CatalogProvider | undefined {
  return CATALOG_PROVIDERS.find((p) => p.name === name);
}
